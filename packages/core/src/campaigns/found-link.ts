/** What kind of link a value holds. */
export type LinkKind = "url" | "domain" | "email" | "ip" | "scheme";

/** A link found in a value; `match` is the text as it reads after normalization. */
export interface FoundLink {
  kind: LinkKind;
  match: string;
}
