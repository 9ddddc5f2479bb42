import { describe, expect, it } from "vitest";
import { recentlyComputed } from "./recent.js";

describe("recentlyComputed", () => {
  it("computes a key once while it is among the last `size` keys asked", () => {
    const computed: string[] = [];
    const upper = recentlyComputed(2, (key: string) => {
      computed.push(key);
      return key.toUpperCase();
    });
    expect([upper("a"), upper("a"), upper("b"), upper("a")]).toEqual(["A", "A", "B", "A"]);
    expect(computed).toEqual(["a", "b"]);
  });

  it("forgets the oldest key once more than `size` are asked, so it never grows past `size`", () => {
    const computed: string[] = [];
    const same = recentlyComputed(2, (key: string) => {
      computed.push(key);
      return key;
    });
    for (const key of ["a", "b", "c", "a", "c"]) same(key);
    // "a" left when "c" came in, and was computed again; "c" was still held.
    expect(computed).toEqual(["a", "b", "c", "a"]);
  });

  it("remembers a computed undefined or null like any value", () => {
    let calls = 0;
    const nothing = recentlyComputed(4, () => {
      calls += 1;
      return undefined;
    });
    nothing("x");
    nothing("x");
    expect(calls).toBe(1);
  });
});
