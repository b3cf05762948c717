import { describe, expect, test } from 'bun:test';
import { splitSentences } from '../../src/dedup/sentences';

describe('splitSentences: prose', () => {
  test('splits on . ! ? followed by a capital', () => {
    expect(splitSentences('The pipeline runs nightly. Does it fail? It never fails! Good.')).toEqual([
      'The pipeline runs nightly.',
      'Does it fail?',
      'It never fails!',
      'Good.',
    ]);
  });

  test('keeps abbreviations, initials and initialisms inside the sentence', () => {
    expect(splitSentences('Dr. Smith met Prof. Jones, e.g. at noon. J. R. Tolkien lived in the U.S. Army days. Then lunch.')).toEqual([
      'Dr. Smith met Prof. Jones, e.g. at noon.',
      'J. R. Tolkien lived in the U.S. Army days.',
      'Then lunch.',
    ]);
  });

  test('decimals, versions and URLs do not split', () => {
    expect(splitSentences('Pi is 3.14 and v1.2.3 shipped from example.com today. Next sentence.')).toEqual([
      'Pi is 3.14 and v1.2.3 shipped from example.com today.',
      'Next sentence.',
    ]);
  });

  test('number-taking abbreviations only hold before a digit', () => {
    expect(splitSentences('See Fig. 3 for details. The answer is no. We moved on.')).toEqual([
      'See Fig. 3 for details.',
      'The answer is no.',
      'We moved on.',
    ]);
  });

  test('a lower-case continuation is not a new sentence; closing quotes stay with their sentence', () => {
    expect(splitSentences('He said "stop." Then he left... and came back. (It rained.) Fine.')).toEqual([
      'He said "stop."',
      'Then he left... and came back.',
      '(It rained.)',
      'Fine.',
    ]);
  });

  test('soft-wrapped lines of one paragraph are joined; blank lines end a paragraph', () => {
    expect(splitSentences('This sentence is wrapped\nover two lines. Short one\n\nNew paragraph')).toEqual([
      'This sentence is wrapped over two lines.',
      'Short one',
      'New paragraph',
    ]);
  });

  test('CJK full stops split without a following space', () => {
    expect(splitSentences('第一句。第二句！第三句？')).toEqual(['第一句。', '第二句！', '第三句？']);
  });

  test('empty and whitespace-only input gives no sentences', () => {
    expect(splitSentences('')).toEqual([]);
    expect(splitSentences(' \n\n\t ')).toEqual([]);
  });
});

describe('splitSentences: Markdown structure', () => {
  test('headings and list items are separate units; items never run together', () => {
    expect(splitSentences('## Results\nThe run passed.\n- first item. Still first.\n- second item\n1. numbered item')).toEqual([
      '## Results',
      'The run passed.',
      '- first item.',
      'Still first.',
      '- second item',
      '1. numbered item',
    ]);
  });

  test('table rows are units; separator rows and rules are dropped', () => {
    expect(splitSentences('| name | score |\n|:---|---:|\n| Ada | 3.5 |\n\n---\nAfter the rule.')).toEqual([
      '| name | score |',
      '| Ada | 3.5 |',
      'After the rule.',
    ]);
  });

  test('every non-blank line of a code fence is a unit, fences dropped', () => {
    expect(splitSentences('Intro text.\n```ts\nconst x = 1;\n\nreturn x. y;\n```\nOutro.')).toEqual([
      'Intro text.',
      'const x = 1;',
      'return x. y;',
      'Outro.',
    ]);
  });

  test('a wrapped blockquote is one paragraph', () => {
    expect(splitSentences('> quoted line one\n> continues here. Second quoted.\nAfter.')).toEqual([
      '> quoted line one continues here.',
      'Second quoted.',
      'After.',
    ]);
  });
});
