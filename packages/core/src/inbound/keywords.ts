import { err, ok, type Result } from "neverthrow";
import type { KeywordClass } from "../ports.js";

/** The words of each class, as written (any case, any width, any punctuation). */
export interface KeywordLists {
  opt_out: readonly string[];
  opt_in: readonly string[];
  help: readonly string[];
}

/** The defaults: the US revocation words and the common carriers' lists. */
export const DEFAULT_KEYWORDS: KeywordLists = {
  opt_out: [
    "STOP",
    "STOPALL",
    "UNSUBSCRIBE",
    "CANCEL",
    "END",
    "QUIT",
    "REVOKE",
    "OPTOUT",
    "OPT OUT",
  ],
  opt_in: ["START", "UNSTOP"],
  help: ["HELP", "INFO"],
};

/** A text as keywords are compared: NFKC, punctuation and symbols gone, upper case, words. */
export function keywordWords(text: string): string[] {
  return text
    .normalize("NFKC")
    .replace(/[\p{P}\p{S}]/gu, "")
    .toUpperCase()
    .trim()
    .split(/\s+/u)
    .filter((word) => word !== "");
}

/** What matched: the class and the keyword as compared (`OPT OUT`). */
export interface KeywordMatch {
  keywordClass: KeywordClass;
  keyword: string;
}

/** A matcher over the defaults and the words `extra` adds. */
export function keywordMatcher(
  extra?: Partial<KeywordLists>,
): (text: string) => KeywordMatch | null {
  const byWords = new Map<string, KeywordClass>();
  // The first class to claim a word keeps it: opt-out before opt-in before help.
  for (const keywordClass of ["opt_out", "opt_in", "help"] as const) {
    for (const word of [...DEFAULT_KEYWORDS[keywordClass], ...(extra?.[keywordClass] ?? [])]) {
      const key = keywordWords(word).join(" ");
      if (key !== "" && !byWords.has(key)) byWords.set(key, keywordClass);
    }
  }
  return (text) => {
    const words = keywordWords(text);
    for (const keyword of [words.slice(0, 2).join(" "), words[0] ?? ""]) {
      if (keyword === "") continue;
      const keywordClass = byWords.get(keyword);
      if (keywordClass !== undefined) return { keywordClass, keyword };
    }
    return null;
  };
}

/**
 * `TIDINGS_KEYWORDS`: a JSON object `{ opt_out, opt_in, help }`, each (optional) an array of
 * words added to the defaults.
 */
export function parseKeywords(text: string): Result<Partial<KeywordLists>, string> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return err('must be a JSON object such as {"opt_out":["ARRET"]}.');
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return err("must be a JSON object with opt_out, opt_in and help arrays.");
  }
  const lists: Partial<Record<keyof KeywordLists, string[]>> = {};
  for (const [name, words] of Object.entries(value)) {
    if (name !== "opt_out" && name !== "opt_in" && name !== "help") {
      return err(`has an unknown key ${JSON.stringify(name)}; use opt_out, opt_in or help.`);
    }
    if (
      !Array.isArray(words) ||
      !words.every((w) => typeof w === "string" && keywordWords(w).length > 0)
    ) {
      return err(`${name} must be an array of words.`);
    }
    if (words.some((w: string) => keywordWords(w).length > 2)) {
      return err(`${name} may hold keywords of one or two words only.`);
    }
    lists[name] = words;
  }
  return ok(lists);
}
