import { it, expect } from "vitest";
it("fails", () => { console.error("noise-for-a-failure"); expect(1).toBe(2); });
