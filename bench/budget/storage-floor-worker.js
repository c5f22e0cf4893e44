// The cold baseline of bench/budget.bench.ts: a Worker with nothing of skillshelf in it, bound to
// the same local R2 bucket and KV namespace, whose first request makes `?r2=N&kv=M` reads of the
// pointer (R2 then KV) and answers their sizes. A never-used copy's CPU for it is what the local
// runtime and its R2 and KV simulators cost a cold request of that many operations before any of
// skillshelf's code runs, so a cold row can be read against the floor under it.
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const r2 = Number(url.searchParams.get("r2") ?? 0);
    const kv = Number(url.searchParams.get("kv") ?? 0);
    let bytes = 0;
    for (let i = 0; i < r2; i++) {
      const object = await env.BUCKET.get(env.R2_KEY);
      if (object === null) return new Response(`no ${env.R2_KEY} in the bucket\n`, { status: 500 });
      bytes += (await object.arrayBuffer()).byteLength;
    }
    for (let i = 0; i < kv; i++) bytes += (await env.KV.get(env.KV_KEY))?.length ?? 0;
    return Response.json({ r2, kv, bytes });
  },
};
