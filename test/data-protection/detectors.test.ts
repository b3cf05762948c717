import { describe, expect, test } from "bun:test";
import { customDetector, customPatternProblem } from "../../src/data-protection/custom-pattern";
import { Placeholders } from "../../src/data-protection/placeholders";
import { compilePolicy, scanText } from "../../src/data-protection/policy";
import { StreamRestorer } from "../../src/data-protection/restore";
import { generate } from "../../scripts/eval/data-protection-gen";

const defaults = compilePolicy(null);
const found = async (text: string) => (await scanText(text, defaults)).map((f) => [f.type, text.slice(f.start, f.end)]);

describe("detectors", () => {
  test("secretlint's AWS secret key range is the key itself, not the variable name", async () => {
    const key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq3Lk9Q2vA";
    expect(await found(`aws_secret_access_key = "${key}"`)).toEqual([["secret", key]]);
  });

  test("each personal data type, and look-alikes that are not", async () => {
    expect(await found("mail jo.ann+x@mail.example.org, card 4556 7375 8689 9855, IBAN DE89 3704 0044 0532 0130 00")).toEqual([
      ["email", "jo.ann+x@mail.example.org"],
      ["credit_card", "4556 7375 8689 9855"],
      ["iban", "DE89 3704 0044 0532 0130 00"],
    ]);
    expect(await found("ssn 536-22-8143 from 203.0.113.7 or 2001:db8::1, phone (415) 555-0132")).toEqual([
      ["us_ssn", "536-22-8143"],
      ["ip_address", "203.0.113.7"],
      ["ip_address", "2001:db8::1"],
      ["phone", "(415) 555-0132"],
    ]);
    expect(await found("test card 4242 4242 4242 4242, ssn 666-12-3456, version 1.2.3.4, at 12:30:45, order 4155550132, 2024-05-01 12:00")).toEqual([]);
  });

  test("national phone numbers: after a phone word in any region, or of the workspace's regions; not order numbers or dates", async () => {
    expect(await found("Llámame al 01 43 30 56 58 cuando puedas. Call ID 0123456789 ended.")).toEqual([["phone", "01 43 30 56 58"]]);
    const regional = compilePolicy({ actions: {}, custom: [], phone_regions: ["DE", "ES"] });
    const text = "Zentrale 089 1234567, móvil 612 34 56 78, Bestellung 0861584493, am 2024-05-02T08:15, Artikel 4428-4437";
    expect((await scanText(text, regional)).map((f) => text.slice(f.start, f.end))).toEqual(["089 1234567", "612 34 56 78"]);
  });

  test("national phone numbers after a phone word of the other EU languages, after 'my number', or alone in a table cell", async () => {
    const phones = async (text: string) => (await found(text)).filter(([type]) => type === "phone").map(([, value]) => value);
    expect(await phones("Può contattarmi allo 02 8765 4321 in giornata.")).toEqual(["02 8765 4321"]);
    expect(await phones("Ligue-me amanhã: 021 345 6789")).toEqual(["021 345 6789"]);
    expect(await phones("Ring mig på 08-765 43 21 efter lunch.")).toEqual(["08-765 43 21"]);
    expect(await phones("Bel me op 010 234 5678 als het pakket komt.")).toEqual(["010 234 5678"]);
    expect(await phones("Τηλ.: 021 0123 4567")).toEqual(["021 0123 4567"]);
    expect(await phones("Hívjon: 06 1 234 5678")).toEqual(["06 1 234 5678"]);
    expect(await phones("Il mio numero è 06 8765 4321.")).toEqual(["06 8765 4321"]);
    expect(await phones("<tr><td>Reception</td><td> 030 4894136 </td></tr>")).toEqual(["030 4894136"]);
    expect(await phones("| Reception | 030 4894136 |")).toEqual(["030 4894136"]);
    // Not announced: an order number in groups, a cell holding more than the number, an ungrouped id in a cell.
    expect(await phones("Bestelnummer 0123 4567 8901 is verzonden. Our order number 030 4894136 shipped.")).toEqual([]);
    expect(await phones("<td>Invoice 030 4894136 paid</td><td>0861584493</td>")).toEqual([]);
  });

  test("announced national numbers of plans without a trunk prefix, and phone words in Cyrillic, Chinese, Japanese and Korean", async () => {
    const phones = async (text: string) => (await found(text)).filter(([type]) => type === "phone").map(([, value]) => value);
    expect(await phones("Ring til mig på 34 41 23 45 i morgen.")).toEqual(["34 41 23 45"]);
    expect(await phones("Telemóvel: 912 345 678")).toEqual(["912 345 678"]);
    expect(await phones("Celular 222 123 4567 (oficina)")).toEqual(["222 123 4567"]);
    expect(await phones("Телефон: 8 (912) 345-67-89")).toEqual(["8 (912) 345-67-89"]);
    expect(await phones("お電話番号：090-1234-5678")).toEqual(["090-1234-5678"]);
    expect(await phones("联系电话: 131 2345 6789")).toEqual(["131 2345 6789"]);
    expect(await phones("휴대폰 010-1234-5678")).toEqual(["010-1234-5678"]);
    // Still not: the same groups without a phone word, a short code after one, an ungrouped run after one.
    expect(await phones("Reference 34 41 23 45 was filed. Order 912 345 678 shipped.")).toEqual([]);
    expect(await phones("Phone: 12 34 56, ext. 12")).toEqual([]);
    expect(await phones("Telefon 71234567")).toEqual([]);
  });

  test("a pagination token is not a credential; a token whose dotted parts hold a random run is", async () => {
    expect(await found('{"next_page_token": "CjQKDmFhYmJjY2RkZWVmZjEyEiIKIDg4", "note": "continuation token: 4f9c1e7a2b8d3c6e5f0a1b2c"}')).toEqual([]);
    expect(await found("the access token is ya29.a0AfH6SMBx7Kq2LmN4pR7sT1vW3xY")).toEqual([["secret", "ya29.a0AfH6SMBx7Kq2LmN4pR7sT1vW3xY"]]);
    expect(await found("password = config.db.password")).toEqual([]);
  });

  test("a social security number with dots or as nine bare digits only right after a word naming it", async () => {
    expect(await found("SSN: 536228143; my social security number is 536.22.8143; número de seguro social 536228143")).toEqual([
      ["us_ssn", "536228143"],
      ["us_ssn", "536.22.8143"],
      ["us_ssn", "536228143"],
    ]);
    // Not: the same digits as an order number or a version, nor numbers the SSA never issues, even named.
    expect(await found("order 536228143 shipped, version 536.22.8143, SSN 900228143, SSN: 123456789")).toEqual([]);
  });

  test("a window read in one region is not answered from the cache for another", async () => {
    const text = "Zentrale 089 1234567";
    const regional = compilePolicy({ actions: {}, custom: [], phone_regions: ["DE"] });
    expect((await scanText(text, regional)).map((f) => f.type)).toEqual(["phone"]);
    expect(await found(text)).toEqual([]);
    expect((await scanText(text, regional)).map((f) => f.type)).toEqual(["phone"]);
  });

  test("providers' prefixed tokens without a credential word; credential words of the other languages", async () => {
    const tokens = {
      "huggingface:UserAccessToken": "hf_Q7ZrWx3JhNm4VtPl2aBcD9eFgH1iJkLmNo",
      "sendgrid:ApiKey": "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",
      "stripe:SecretKey": "sk_live_51HxQ2ZrWx3JhNm4VtPlAbCd",
      "pypi:ApiToken": "pypi-AgEIcHlwaS5vcmcCJGQ3ZTU2ZDFmLTk4YjAtNGU2Ny1hZDFkLTE5ZWE1NjVhODk3NwACKlsz",
      "digitalocean:Token": `dop_v1_${"3f9a0c".repeat(10)}a1b2`,
      "gcp:ApiKey": "AIzaSyD3x9Qm2LpRt7Vw4Zy8Bc1Nf6Hj0Kl5Ms_",
    };
    for (const [rule, token] of Object.entries(tokens)) {
      const findings = await scanText(`Why is this rejected? ${token}`, defaults);
      expect(findings.map((f) => [f.type, f.rule, f.end - f.start])).toEqual([["secret", rule, token.length]]);
    }
    // The prefix inside a longer identifier, and too short to be a token.
    expect(await found("see shf_Q7ZrWx3JhNm4VtPl2aBcD9eFgH1iJkLmNo and hf_short, SG.abc.def")).toEqual([]);
    expect(await found("La mia password è Xy7#kLm9pQ, la chiave: 9fK2mQ7xLp4Rt8Vw3Zy6")).toEqual([
      ["secret", "Xy7#kLm9pQ"],
      ["secret", "9fK2mQ7xLp4Rt8Vw3Zy6"],
    ]);
    expect(await found("Voici la clé : u5VX9pzpXtKKisDjaSSoXVyxGq4Cx5kH — merci")).toEqual([["secret", "u5VX9pzpXtKKisDjaSSoXVyxGq4Cx5kH"]]);
  });

  test("a four-part number after a version word is a version, after other words an address", async () => {
    expect(await found("firmware 4.2.17.3, build: 10.0.19045.3, versión 1.2.3.4")).toEqual([]);
    expect(await found("server 4.2.17.3 answered")).toEqual([["ip_address", "4.2.17.3"]]);
  });

  test("an IPv6 host with a port is read in brackets; unbracketed, the port is part of a longer address", async () => {
    expect(await found("upstream [2001:db8:85a3::8a2e:370]:8080 refused")).toEqual([["ip_address", "2001:db8:85a3::8a2e:370"]]);
    expect(await found("upstream 2001:db8:85a3::8a2e:370:8080 refused")).toEqual([["ip_address", "2001:db8:85a3::8a2e:370:8080"]]);
  });

  test("overlapping findings resolve the same way whatever the detector order: the secret wins over the address in a URL", async () => {
    const url = "postgres://admin:S3cr3tPassw0rd@db.example.com:5432/app";
    const findings = await scanText(`connect to ${url}`, defaults);
    expect(findings.map((f) => f.type)).toEqual(["secret"]);
  });

  test("scanning leaves nothing behind: secretlint's performance marks are not recorded scan after scan", async () => {
    const marks = () => performance.getEntriesByType("mark").length;
    const before = marks();
    // Each text has a 16-character run, so secretlint runs on every one of them.
    for (let i = 0; i < 50; i++) await scanText(`What is the weather like in city number responses-12-${1000 + i}?`, defaults);
    expect(marks()).toBe(before);
  });
});

describe("custom patterns", () => {
  test("catastrophic shapes are refused before they are stored", () => {
    expect(customPatternProblem("(a+)+$")).toContain("nested quantifiers");
    expect(customPatternProblem("(x|xy)*z")).toContain("alternation");
    expect(customPatternProblem("\\d*\\d*\\d*z")).toContain("too slow");
    expect(customPatternProblem("a+b+c+d+")).toContain("at most 3");
    expect(customPatternProblem("x?")).toContain("empty string");
    expect(customPatternProblem("(a)\\1")).toContain("backreferences");
    expect(customPatternProblem("EMP-\\d{6}")).toBeUndefined();
  });

  test("an accepted pattern reports at most 1000 matches, in 4 KB pieces", () => {
    const detector = customDetector({ name: "digit", pattern: "\\d", action: "log" });
    const findings = detector.detect("1 ".repeat(5000)) as { start: number }[];
    expect(findings).toHaveLength(1000);
    expect(findings.at(-1)!.start).toBe(1998);
  });
});

describe("mask restore in streams", () => {
  test("a placeholder split over three deltas comes out whole; text without one passes unchanged", () => {
    const placeholders = new Placeholders();
    const p = placeholders.placeholder("email", "a@b.example", true);
    const restorer = new StreamRestorer(placeholders.masked);
    const event = (text: string) => {
      const data = JSON.stringify({ choices: [{ index: 0, delta: { content: text } }] });
      return { raw: `data: ${data}\n\n`, event: undefined, data };
    };
    const out = ["hi ", p.slice(0, 3), p.slice(3, 6), p.slice(6) + " bye"].map((t) => restorer.rewrite(event(t)));
    const text = out.map((raw) => (raw.startsWith("data: ") ? JSON.parse(raw.slice(6)).choices[0].delta.content : "")).join("");
    expect(text).toBe("hi a@b.example bye");
    expect(out[0]).toBe(event("hi ").raw);
  });

  test("a held prefix is sent before the next event of another kind", () => {
    const placeholders = new Placeholders();
    placeholders.placeholder("email", "a@b.example", true);
    const restorer = new StreamRestorer(placeholders.masked);
    const data = JSON.stringify({ id: "c", choices: [{ index: 0, delta: { content: "see [EM" } }] });
    const first = restorer.rewrite({ raw: `data: ${data}\n\n`, event: undefined, data });
    expect(first).toContain('"see "');
    const done = restorer.rewrite({ raw: "data: [DONE]\n\n", event: undefined, data: "[DONE]" });
    expect(done).toBe(`data: ${JSON.stringify({ id: "c", choices: [{ index: 0, delta: { content: "[EM" } }] })}\n\ndata: [DONE]\n\n`);
  });
});

describe("eval generator", () => {
  test("writes an IPv6 host followed by a port in brackets, labelling the address alone (every split the same every run)", () => {
    for (const split of ["dev", "heldout", "fresh"] as const) {
      const samples = generate(split);
      expect(JSON.stringify(generate(split))).toBe(JSON.stringify(samples));
      for (const sample of samples) {
        for (const entity of sample.entities.filter((e) => e.type === "ip_address")) {
          const value = sample.text.slice(entity.start, entity.end);
          if (value.includes(":") && sample.text[entity.end] === ":") throw new Error(`unbracketed IPv6 host with a port: ${sample.text}`);
          if (sample.text[entity.start - 1] === "[") expect(sample.text[entity.end]).toBe("]");
        }
      }
      if (split === "dev") expect(samples.some((s) => /\[[0-9a-f:]+\]:8080/.test(s.text))).toBe(true);
    }
  });
});
