/**
 * The dashboard's browser files are imported `with { type: "file" }` (see assets.ts): the default
 * export is the file's path (on disk in development, inside the binary once compiled). The browser
 * modules use the .mjs extension so that this declaration covers nothing but them.
 */
declare module "*.mjs" {
  const path: string;
  export default path;
}

declare module "*.css" {
  const path: string;
  export default path;
}
