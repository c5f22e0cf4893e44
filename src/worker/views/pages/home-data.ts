// The shelf page's data over the request's shelf: the served skills (search through the
// generation's index, the catalog's tag match), one page of them, every tag with its count, and
// the shelf's status. Reads what /v1/skills, /v1/search and /v1/shelf read, nothing else.
import { API_LIMITS } from "../../../core/api/contract.ts";
import { catalogSelection } from "../../../core/disclosure/catalog.ts";
import { parseQuery, SearchQueryTooLongError } from "../../../core/search/bm25.ts";
import { compareCodePoints } from "../../../core/python-compat/py-text.ts";
import { searchShelf } from "../../shelf/search.ts";
import type { ServedSkill, ShelfService } from "../../shelf/service.ts";
import { HOME_PAGE_SIZE, type HomeView } from "./home.tsx";
import type { PageLinks } from "./layout.tsx";

/** The shelf page's arguments, normalized so equal requests share one cached page. */
export interface HomeArgs {
  q: string;
  tag: string;
  page: number;
}

/** Pages past this are not rendered (10,000 skills at 100 a page is 100 pages). */
const MAX_PAGE = 10_000;

/**
 * The normalized arguments of the shelf page's query string (whitespace trimmed, page clamped).
 * @example homeArgs({ q: "  review ", page: "x" }) // => { q: "review", tag: "", page: 1 }
 */
export function homeArgs(query: { q?: string | undefined; tag?: string | undefined; page?: string | undefined }): HomeArgs {
  const page = Number.parseInt(query.page ?? "1", 10);
  return {
    q: (query.q ?? "").trim().split(/\s+/u).join(" "),
    tag: (query.tag ?? "").trim().slice(0, 200),
    page: Number.isSafeInteger(page) && page >= 1 ? Math.min(page, MAX_PAGE) : 1,
  };
}

/** Every tag of the servable skills with how many carry it, by name. */
function tagCounts(skills: readonly ServedSkill[]): Array<[string, number]> {
  const counts = new Map<string, number>();
  for (const skill of skills) for (const tag of new Set(skill.tags)) counts.set(tag, (counts.get(tag) ?? 0) + 1);
  return [...counts].sort((a, b) => compareCodePoints(a[0], b[0]));
}

/** The skills a search matches, best first; or why the query cannot be used. */
async function searched(shelf: ShelfService, q: string, all: readonly ServedSkill[]): Promise<{ skills: ServedSkill[]; problem: string | null }> {
  let query: ReturnType<typeof parseQuery>;
  try {
    query = parseQuery(q);
  } catch (err) {
    if (err instanceof SearchQueryTooLongError) return { skills: [], problem: `The search is too long: at most ${API_LIMITS.maxQueryChars} characters.` };
    throw err;
  }
  if (query.terms.length === 0) return { skills: [], problem: "The search has only common words; add a word that says what the skill should do." };
  const ranked = await searchShelf(shelf, query, Math.max(all.length, 1));
  return { skills: ranked.map((r) => r.skill), problem: null };
}

/** History entries the home page's "what's new" shows. */
export const WHATS_NEW_ENTRIES = 5;

/**
 * The shelf page's view for one request.
 * @example HomePage(await homeView(c.get("shelf"), homeArgs(c.req.query()), links, "/"))
 */
export async function homeView(shelf: ShelfService, args: HomeArgs, links: PageLinks, action: string): Promise<HomeView> {
  const [status, served, recent] = await Promise.all([shelf.status(), shelf.skills(), shelf.recentChanges(WHATS_NEW_ENTRIES)]);
  let skills: readonly ServedSkill[] = served;
  let queryProblem: string | null = null;
  if (args.q !== "") ({ skills, problem: queryProblem } = await searched(shelf, args.q, served));
  if (args.tag !== "") {
    // The catalog's tag match (casefolded, stripped), keeping the search's ranking order.
    const tagged = new Set(catalogSelection(served, { tags: [args.tag] }).skills.map((s) => s.name));
    skills = skills.filter((s) => tagged.has(s.name));
  }
  const pages = Math.max(1, Math.ceil(skills.length / HOME_PAGE_SIZE));
  const start = (args.page - 1) * HOME_PAGE_SIZE;
  return {
    links,
    action,
    status,
    skills: skills.slice(start, start + HOME_PAGE_SIZE),
    total: skills.length,
    q: args.q,
    queryProblem,
    tag: args.tag,
    tags: tagCounts(served),
    page: args.page,
    pages,
    recent,
  };
}
