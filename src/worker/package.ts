// `skillshelf/worker`: the Worker as a team's repository deploys it from node_modules (docs/teams.md).
// Its types are written out here, not imported, so the declarations the package ships stand alone
// (scripts/build-worker.ts refuses any that would point into src/).
import { createShelfApp } from "./app.ts";

/** What a sign-in method makes of a request: it may read, it is refused (401), or it carries none of its credentials. */
export type ShelfSignInVerdict = "granted" | "refused" | undefined;

/**
 * A way into a private shelf besides read tokens (OAuth access tokens, an identity provider's
 * session…). Asked in order, before the read token, on every private read; each answers only for
 * its own credentials and leaves the rest (undefined) to the next.
 */
export interface ShelfSignInMethod {
  readonly name: string;
  authenticate(request: Request, env: Record<string, unknown>): Promise<ShelfSignInVerdict>;
}

/** Options of {@link createShelfWorker}; the rest of the Worker is configured by wrangler.toml's vars, bindings and secrets. */
export interface ShelfWorkerOptions {
  /** Sign-in methods a private shelf accepts besides its read tokens (default: none). */
  signIn?: readonly ShelfSignInMethod[];
}

/** The execution context the Workers runtime passes to `fetch`. */
export interface ShelfExecutionContext {
  waitUntil(promise: Promise<unknown>): void;
  passThroughOnException(): void;
}

/** A Worker's module export: what `export default` in the Worker's `main` must be. */
export interface ShelfWorker {
  fetch(request: Request, env: object, ctx: ShelfExecutionContext): Response | Promise<Response>;
}

/**
 * The shelf Worker. A team's `src/worker.ts` is `export default createShelfWorker()`, or passes options.
 * @example export default createShelfWorker({ signIn: [oauthMethod] })
 */
export function createShelfWorker(options: ShelfWorkerOptions = {}): ShelfWorker {
  const app = createShelfApp(options.signIn ? { access: { methods: options.signIn } } : {});
  return {
    fetch: (request, env, ctx) => app.fetch(request, env as unknown as CloudflareBindings, ctx as ExecutionContext),
  };
}

let defaults: ShelfWorker | undefined;

/** The Worker with its defaults, built on its first request (an isolate that imports only the factory never builds it). */
const defaultWorker: ShelfWorker = {
  fetch(request, env, ctx) {
    defaults ??= createShelfWorker();
    return defaults.fetch(request, env, ctx);
  },
};
export default defaultWorker;
