// The baseline of bench/http.bench.ts: the smallest static host over skillshelf's R2 objects. It maps
// a request path to a blob's SHA-256 (env.FILES, computed by the bench from the build folder), answers
// 304 when If-None-Match names that digest, and otherwise streams `blobs/<sha256>` from R2 with the
// digest as its ETag. No checks, no headers beyond these: what any Worker in front of R2 must do.
// `/ping` answers a fixed JSON body without storage: the floor skillshelf's /healthz is compared with.
const TYPES = { md: "text/markdown; charset=utf-8", json: "application/json", py: "text/x-python; charset=utf-8", txt: "text/plain; charset=utf-8" };

export default {
  async fetch(request, env) {
    const path = decodeURIComponent(new URL(request.url).pathname);
    if (path === "/ping") return new Response('{"ok":true}', { headers: { "Content-Type": "application/json" } });
    const sha256 = Object.hasOwn(env.FILES, path) ? env.FILES[path] : undefined;
    if (sha256 === undefined) return new Response("not found\n", { status: 404 });
    const etag = `"${sha256}"`;
    if (request.headers.get("If-None-Match") === etag) return new Response(null, { status: 304, headers: { ETag: etag } });
    const object = await env.BUCKET.get(`blobs/${sha256}`);
    if (object === null) return new Response("not found\n", { status: 404 });
    const type = TYPES[path.slice(path.lastIndexOf(".") + 1)] ?? "application/octet-stream";
    return new Response(object.body, { headers: { ETag: etag, "Content-Type": type } });
  },
};
