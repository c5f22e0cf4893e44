// Who may read a shelf. A public shelf is open; a private one needs `Authorization: Bearer
// <read token>` on every read route, checked before anything is looked up, so an
// unauthenticated caller gets the same 401 for a skill that exists and one that does not.
// Clients that cannot send headers (the `skills` CLI) can use a capability URL,
// `/c/<read token>/…`, when SHELF_CAPABILITY_URLS is "on"; it is off by default because URLs
// end up in logs, shell history and Referer headers (docs/http.md lists the risks).
import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { ShelfError } from "../errors.ts";
import { notFound } from "../http/errors.ts";
import { bearerToken } from "./bearer.ts";
import { createReadTokenVerifier, type ReadTokenEnv, type ReadTokenVerifier } from "./read-tokens.ts";
import { sessionTokenHash, type SessionEnv } from "./session.ts";

/** The token hash a pages session cookie vouches for, as the verifier takes it; null for anything else. */
async function sessionToken(cookie: string, env: SessionEnv): Promise<{ sha256: string } | null> {
  const sha256 = await sessionTokenHash(cookie, env);
  return sha256 === null ? null : { sha256 };
}

/** Whether a shelf is open to anyone or only to holders of a read token. */
export type ShelfVisibility = "public" | "private";

/** The bindings read access depends on. */
export interface ReadAccessEnv extends ReadTokenEnv, SessionEnv {
  SHELF_VISIBILITY?: string;
  SHELF_CAPABILITY_URLS?: string;
}

/**
 * The request's one scope variable: who may read (the shelf's visibility), the URL prefix to echo,
 * and the generation the URL pins. Set by read access; read with `c.get("shelfAccess")`.
 */
export interface ShelfAccess {
  visibility: ShelfVisibility;
  /** "" or "/c/<token>": prepended to every URL a response points at, so links keep working. */
  urlPrefix: string;
  /** The generation a /g/<generation>/… URL pins; undefined at the current one. */
  pinned: string | undefined;
}

/** The read group's URL parameters (its /c/<token> and /g/<generation> prefixes), read one way, here. */
export interface ReadUrlParams {
  token: string | undefined;
  generation: string | undefined;
}

/**
 * The capability token and pinned generation a read URL names, from its path parameters.
 * @example readUrlParams(c) // => { token: undefined, generation: "9f2c…" } under /g/9f2c…/
 */
export function readUrlParams(c: Context): ReadUrlParams {
  const params: Partial<Record<string, string>> = c.req.param();
  return { token: params.token, generation: params.generation };
}

/** Hono variables set by {@link readAccess}. */
export type ReadAccessVariables = { shelfAccess: ShelfAccess };

/**
 * The cookie the shelf's pages (src/worker/views/pages) keep a sign-in session in (auth/session.ts: a
 * MAC over the read token's hash, never the token) after their sign-in form:
 * HttpOnly, Secure, SameSite=Lax, Path=/ui. Accepted only on the pages' paths (see {@link isUiPath}),
 * so it never authorizes the API, the files or /mcp, and a page on another site cannot make it do so.
 */
export const READ_COOKIE = "skillshelf_read";

/**
 * True for the pages' paths, where {@link READ_COOKIE} is accepted: /ui and below, pinned ones too.
 * @example isUiPath("/ui/skills/adr") // => true; isUiPath("/v1/skills") // => false
 */
export function isUiPath(path: string): boolean {
  return /^(?:\/g\/[^/]+)?\/ui(?:\/|$)/.test(path);
}

/** The realm named in WWW-Authenticate. */
const READ_REALM = "skillshelf";

/**
 * Reads SHELF_VISIBILITY. Anything other than "public" is treated as private (fail closed) and
 * logged, so a typo in wrangler.toml never publishes a team's shelf.
 */
export function shelfVisibility(env: ReadAccessEnv): ShelfVisibility {
  const value = env.SHELF_VISIBILITY ?? "public";
  if (value === "public") return "public";
  if (value !== "private") console.warn(`SHELF_VISIBILITY=${JSON.stringify(value)} is neither "public" nor "private"; serving as private`);
  return "private";
}

/** True when the capability-URL form is switched on (SHELF_CAPABILITY_URLS = "on"). */
export function capabilityUrlsEnabled(env: ReadAccessEnv): boolean {
  return env.SHELF_CAPABILITY_URLS === "on";
}

function unauthorized(presented: boolean, challengeParams: readonly string[] = []): never {
  const params = [`realm="${READ_REALM}"`, ...(presented ? ['error="invalid_token"'] : []), ...challengeParams];
  throw new ShelfError(
    "unauthorized",
    401,
    presented
      ? "The read token was not accepted (unknown, revoked or expired); ask the shelf's owner for a new one."
      : "This shelf is private: send Authorization: Bearer <read token>.",
    { headers: { "WWW-Authenticate": `Bearer ${params.join(", ")}` } },
  );
}

/** What a sign-in method makes of a request: it may read, it is refused (401), or it carries none of the method's credentials. */
export type SignInVerdict = "granted" | "refused" | undefined;

/**
 * A way into a private shelf besides read tokens: the hook later sign-in methods (OAuth access
 * tokens first) plug into, so each is reviewed on its own and read access stays one guard.
 * Methods are asked in order, after the read token (a valid read token or pages session is never
 * shown to a method), except a bearer token a method claims by its shape, which that method is
 * asked about first; each answers only for its own credentials (undefined
 * otherwise, and the next is asked), and may throw a ShelfError of its own (a 403 for a token
 * without the scope a read needs). Capability URLs are not theirs: those stay a 404.
 * @example readAccess({ methods: [{ name: "oauth", authenticate: async (request) => undefined }] })
 */
export interface SignInMethod {
  /** Names the method, e.g. "oauth". */
  readonly name: string;
  authenticate(request: Request, env: ReadAccessEnv): Promise<SignInVerdict>;
  /**
   * True when a bearer token has the shape only this method issues (OAuth: workers-oauth-provider's
   * `<user>:<grant>:<secret>`) and the method is on for `env`. Such a token is shown to this method
   * before the read-token store, which would only miss (a KV read saved per cold isolate); when
   * the method does not grant it, the read token is checked as usual, so the answer is the same as
   * asking in the usual order, and a read token of that shape still reads.
   */
  claimsToken?(token: string, env: ReadAccessEnv): boolean;
  /**
   * Parameters the method adds to every 401's `Bearer` challenge (OAuth: `resource_metadata` and
   * `scope`, so a client can discover how to sign in), or none when it is off for `env`.
   */
  challengeParams?(env: ReadAccessEnv): readonly string[];
}

/** Options for {@link readAccess}. */
export interface ReadAccessOptions {
  /** Verifies a read token (default: tokens held as SHA-256 only, auth/read-tokens.ts). */
  verify?: ReadTokenVerifier;
  /** Sign-in methods asked before the read token on a private shelf (default: none). */
  methods?: readonly SignInMethod[];
}

/**
 * Middleware guarding read routes. Sets `shelfAccess` for the handlers. A route mounted under
 * `/c/:token` is a capability URL: 404 unless enabled and the token verifies, so a wrong or
 * disabled capability URL looks exactly like a path that does not exist. A failing token lookup
 * throws StorageUnavailableError (503), never a 401.
 * @example reads.use("/skills/*", readAccess())
 */
export function readAccess(options: ReadAccessOptions = {}): MiddlewareHandler<{ Bindings: ReadAccessEnv; Variables: ReadAccessVariables }> {
  const verify = options.verify ?? createReadTokenVerifier();
  const methods = options.methods ?? [];

  return async function shelfReadAccess(c, next) {
    const visibility = shelfVisibility(c.env);
    const { token: capability, generation: pinned } = readUrlParams(c);
    if (capability !== undefined) {
      if (!capabilityUrlsEnabled(c.env) || !(await verify(capability, c.env))) throw notFound();
      c.set("shelfAccess", { visibility, urlPrefix: `/c/${encodeURIComponent(capability)}`, pinned });
      return next();
    }
    if (visibility === "private") {
      const header = c.req.header("Authorization");
      // The Authorization header wins; without one, the pages' paths also take the sign-in cookie.
      const cookie = header || !isUiPath(c.req.path) ? undefined : getCookie(c, READ_COOKIE);
      const token = header ? bearerToken(header) : cookie ? await sessionToken(cookie, c.env) : null;
      // A bearer token of a method's own shape: that method first (see SignInMethod.claimsToken).
      const owner = typeof token === "string" ? methods.find((method) => method.claimsToken?.(token, c.env)) : undefined;
      let ownerVerdict: SignInVerdict;
      let ownerError: { error: unknown } | undefined;
      if (owner) {
        try {
          ownerVerdict = await owner.authenticate(c.req.raw, c.env);
        } catch (error) {
          ownerError = { error }; // thrown only if the read token does not read either, as in the usual order
        }
        if (ownerVerdict === "granted") {
          c.set("shelfAccess", { visibility, urlPrefix: "", pinned });
          return next();
        }
      }
      if (token === null || !(await verify(token, c.env))) {
        // Not a read token: each sign-in method answers for its own credentials (OAuth access tokens).
        const challenge = methods.flatMap((method) => method.challengeParams?.(c.env) ?? []);
        if (ownerError) throw ownerError.error;
        if (ownerVerdict === "refused") unauthorized(true, challenge);
        for (const method of methods) {
          if (method === owner) continue; // asked already
          const verdict = await method.authenticate(c.req.raw, c.env);
          if (verdict === "refused") unauthorized(true, challenge);
          if (verdict === "granted") {
            c.set("shelfAccess", { visibility, urlPrefix: "", pinned });
            return next();
          }
        }
        unauthorized(Boolean(header || cookie), challenge);
      }
    }
    c.set("shelfAccess", { visibility, urlPrefix: "", pinned });
    return next();
  };
}
