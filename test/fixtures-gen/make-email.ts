/**
 * Writes real e-mails: an RFC 5322 .eml (multipart/mixed: HTML and plain-text alternatives plus a
 * base64 attachment, encoded-word subject), and an Outlook .msg in the [MS-OXMSG] layout (a
 * compound file burnt with msgreader's own CFB writer: property streams, recipient and attachment storages).
 */
import { burn, type Entry } from "@kenjiuno/msgreader/lib/Burner";
import { TypeEnum } from "@kenjiuno/msgreader/lib/Reader";

export type TestEmail = {
  from: { name: string; address: string };
  to: { name: string; address: string }[];
  cc?: { name: string; address: string }[];
  date: Date;
  subject: string;
  html?: string;
  text: string;
  attachments?: { filename: string; mimeType: string; content: string }[];
};

const addressList = (list: { name: string; address: string }[]) => list.map((a) => `"${a.name}" <${a.address}>`).join(", ");

export function makeEml(email: TestEmail): string {
  const boundary = "sieve-mixed-1";
  const alternative = "sieve-alt-1";
  const b64 = (text: string) => Buffer.from(text).toString("base64").replace(/.{76}/g, "$&\r\n");
  const lines = [
    `From: ${addressList([email.from])}`,
    `To: ${addressList(email.to)}`,
    ...(email.cc ? [`Cc: ${addressList(email.cc)}`] : []),
    `Date: ${email.date.toUTCString().replace("GMT", "+0000")}`,
    `Subject: =?UTF-8?B?${Buffer.from(email.subject).toString("base64")}?=`,
    "Message-ID: <fixture-1@sieve.test>",
    "MIME-Version: 1.0",
    `Content-Type: multipart/mixed; boundary="${boundary}"`,
    "",
    `--${boundary}`,
    `Content-Type: multipart/alternative; boundary="${alternative}"`,
    "",
    `--${alternative}`,
    "Content-Type: text/plain; charset=utf-8",
    "Content-Transfer-Encoding: quoted-printable",
    "",
    email.text,
    ...(email.html ? [`--${alternative}`, "Content-Type: text/html; charset=utf-8", "Content-Transfer-Encoding: base64", "", b64(email.html)] : []),
    `--${alternative}--`,
    ...(email.attachments ?? []).flatMap((attachment) => [
      `--${boundary}`,
      `Content-Type: ${attachment.mimeType}; name="${attachment.filename}"`,
      `Content-Disposition: attachment; filename="${attachment.filename}"`,
      "Content-Transfer-Encoding: base64",
      "",
      b64(attachment.content),
    ]),
    `--${boundary}--`,
    "",
  ];
  return lines.join("\r\n");
}

const utf16 = (text: string) => new Uint8Array(Buffer.from(text + "\0", "utf16le"));

/** A property stream: `header` bytes of zeros (32 for the message, 8 below it), then 16-byte fixed-size entries. */
function propertyStream(header: number, props: { tag: number; value: Uint8Array }[]): Uint8Array {
  const out = new Uint8Array(header + props.length * 16);
  const view = new DataView(out.buffer);
  props.forEach((prop, i) => {
    view.setUint32(header + i * 16, prop.tag, true);
    view.setUint32(header + i * 16 + 4, 6, true); // readable | writable
    out.set(prop.value.subarray(0, 8), header + i * 16 + 8);
  });
  return out;
}

const uint32Value = (value: number) => new Uint8Array(new Uint32Array([value, 0]).buffer);

function fileTime(date: Date): Uint8Array {
  const ticks = BigInt(date.getTime() + 11644473600000) * 10000n;
  return new Uint8Array(new BigUint64Array([ticks]).buffer);
}

export function makeMsg(email: TestEmail): Uint8Array {
  const entries: Entry[] = [{ name: "Root Entry", type: TypeEnum.ROOT, length: 0, children: [] }];
  const addDocument = (parent: number, name: string, bytes: Uint8Array) => {
    entries[parent].children!.push(entries.length);
    entries.push({ name, type: TypeEnum.DOCUMENT, length: bytes.length, binaryProvider: () => bytes });
  };
  const addStorage = (parent: number, name: string) => {
    entries[parent].children!.push(entries.length);
    entries.push({ name, type: TypeEnum.DIRECTORY, length: 0, children: [] });
    return entries.length - 1;
  };
  const stringProp = (parent: number, id: number, text: string) => addDocument(parent, `__substg1.0_${id.toString(16).toUpperCase().padStart(4, "0")}001F`, utf16(text).subarray(0, -2));

  addDocument(0, "__properties_version1.0", propertyStream(32, [{ tag: 0x00390040, value: fileTime(email.date) }]));
  stringProp(0, 0x001a, "IPM.Note");
  stringProp(0, 0x0037, email.subject);
  stringProp(0, 0x0c1a, email.from.name);
  stringProp(0, 0x0c1f, email.from.address);
  stringProp(0, 0x5d01, email.from.address);
  stringProp(0, 0x1000, email.text);
  if (email.html) addDocument(0, "__substg1.0_10130102", new Uint8Array(Buffer.from(email.html)));
  const recipients = [...email.to.map((a) => ({ ...a, type: 1 })), ...(email.cc ?? []).map((a) => ({ ...a, type: 2 }))];
  recipients.forEach((recipient, i) => {
    const storage = addStorage(0, `__recip_version1.0_#${i.toString(16).toUpperCase().padStart(8, "0")}`);
    addDocument(storage, "__properties_version1.0", propertyStream(8, [{ tag: 0x0c150003, value: uint32Value(recipient.type) }]));
    stringProp(storage, 0x3001, recipient.name);
    stringProp(storage, 0x3003, recipient.address);
    stringProp(storage, 0x39fe, recipient.address);
  });
  (email.attachments ?? []).forEach((attachment, i) => {
    const storage = addStorage(0, `__attach_version1.0_#${i.toString(16).toUpperCase().padStart(8, "0")}`);
    const content = new Uint8Array(Buffer.from(attachment.content));
    addDocument(storage, "__properties_version1.0", propertyStream(8, [{ tag: 0x0e200003, value: uint32Value(content.length) }]));
    stringProp(storage, 0x3707, attachment.filename);
    stringProp(storage, 0x370e, attachment.mimeType);
    addDocument(storage, "__substg1.0_37010102", content);
  });
  return burn(entries);
}
