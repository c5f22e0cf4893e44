// Vite's `?raw` imports (a file's text as a string), which the workerd tests use to read the docs
// they check (test/worker/mcp/docs-curl.test.ts): workerd has no file system to read them from.
declare module "*?raw" {
  const text: string;
  export default text;
}
