import { TidingsError } from "./errors.js";
import type { Page } from "./types.js";

/**
 * A list the API answers in pages: `for await (const item of list)` walks every cursor,
 * `page()` fetches the first page only (or the one at the `cursor` the list started from),
 * and `pages()` walks page by page. Nothing is fetched until one of them is used.
 */
export class PageIterator<T> implements AsyncIterable<T> {
  readonly #fetchPage: (cursor: string | undefined) => Promise<Page<T>>;
  readonly #cursor: string | undefined;

  constructor(fetchPage: (cursor: string | undefined) => Promise<Page<T>>, cursor?: string) {
    this.#fetchPage = fetchPage;
    this.#cursor = cursor;
  }

  page(): Promise<Page<T>> {
    return this.#fetchPage(this.#cursor);
  }

  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    let cursor = this.#cursor;
    for (;;) {
      const page = await this.#fetchPage(cursor);
      yield page;
      const next = page.meta.next_cursor;
      if (!page.meta.has_more || next === null) return;
      if (next === cursor) {
        // A server that repeats a cursor would make this loop forever.
        throw new TidingsError({
          status: 0,
          code: "unexpected_response",
          detail: "The next page's cursor is the current page's.",
        });
      }
      cursor = next;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.data;
  }
}
