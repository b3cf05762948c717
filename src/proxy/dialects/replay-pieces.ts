/** Pieces of this many characters keep replayed deltas close to what providers send. */
const REPLAY_PIECE_CHARS = 64;

/** A stored text cut into the deltas a replayed stream sends. */
export function replayPieces(text: string): string[] {
  const pieces: string[] = [];
  for (let at = 0; at < text.length; at += REPLAY_PIECE_CHARS) pieces.push(text.slice(at, at + REPLAY_PIECE_CHARS));
  return pieces;
}
