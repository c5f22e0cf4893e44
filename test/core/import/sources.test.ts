// Source identities and the allow-list: one repository however it is spelled, and entries that
// allow only what lies under them at a path boundary.
import { describe, expect, it } from "vitest";
import { allowedBy, entryAllows, parseShelfConfig, ShelfConfigError, SourceError, sourceIdentity } from "../../../src/core/import/sources.ts";

describe("sourceIdentity", () => {
  it("names one repository the same however it is cloned", () => {
    for (const spelling of [
      "acme/skills",
      "https://github.com/acme/skills",
      "https://GitHub.com/acme/skills.git/",
      "git@github.com:acme/skills.git",
      "ssh://git@github.com/acme/skills.git",
      "git+https://user:secret@github.com/acme/skills?x=1#y",
    ]) {
      expect(sourceIdentity(spelling), spelling).toBe("https://github.com/acme/skills");
    }
  });

  it("keeps file URLs, http and clawhub identities apart", () => {
    expect(sourceIdentity("file:///srv/repo.git")).toBe("file:///srv/repo");
    expect(sourceIdentity("http://127.0.0.1:8787/")).toBe("http://127.0.0.1:8787");
    expect(sourceIdentity("clawhub:https://ClawHub.ai/")).toBe("clawhub:https://clawhub.ai");
  });

  it("refuses what is not a source", () => {
    expect(() => sourceIdentity("javascript:alert(1)")).toThrow(SourceError);
    expect(() => sourceIdentity("not a url")).toThrow(SourceError);
  });
});

describe("the allow-list", () => {
  it("allows an entry and what lies under it, never a sibling sharing a prefix", () => {
    expect(entryAllows("https://github.com/acme", "https://github.com/acme/skills")).toBe(true);
    expect(entryAllows("https://github.com/acme", "https://github.com/acme")).toBe(true);
    expect(entryAllows("https://github.com/acme", "https://github.com/acme-evil/skills")).toBe(false);
    expect(entryAllows("clawhub:https://clawhub.ai", "clawhub:https://clawhub.ai/pdf")).toBe(true);
    expect(entryAllows("https://clawhub.ai", "clawhub:https://clawhub.ai/pdf")).toBe(false);
    expect(allowedBy(["https://a.example", "https://github.com/acme/skills"], "https://github.com/acme/skills")).toBe("https://github.com/acme/skills");
    expect(allowedBy([], "https://github.com/acme/skills")).toBeNull();
  });

  it("parses skillshelf.yaml and refuses a typo that would empty it", () => {
    expect(parseShelfConfig("sources:\n  - acme/skills\n  - ./vendor\n").sources).toEqual(["acme/skills", "./vendor"]);
    expect(parseShelfConfig("").sources).toBeNull();
    expect(parseShelfConfig("sources:\n").sources).toBeNull();
    expect(() => parseShelfConfig("source:\n  - acme/skills\n")).toThrow(ShelfConfigError);
    expect(() => parseShelfConfig("sources: acme/skills\n")).toThrow(/list of strings/);
    expect(() => parseShelfConfig("sources: [\n")).toThrow(/not YAML/);
  });
});
