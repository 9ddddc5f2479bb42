import type { PGlite } from "@electric-sql/pglite";
import type pg from "pg";
import { describe, expectTypeOf, it } from "vitest";
import type { migrate } from "./migrations.js";
import type { listenForDeliveries } from "./notifications.js";
import type { singleConnection } from "./pg-client.js";
import type { postgresStorage } from "./postgres-storage.js";
import type { preparedStatements } from "./prepared-statements.js";

type StorageClient = Parameters<typeof postgresStorage>[0];
type ListenSource = Parameters<typeof listenForDeliveries>[0];

// The adapter declares the driver subset it uses instead of importing pg's types; these
// check that the handles a team already has still fit it.
describe("the driver handles a team already has", () => {
  it("a pg.Pool and PGlite are storages, migrations and listeners as they are", () => {
    expectTypeOf<pg.Pool>().toExtend<StorageClient>();
    expectTypeOf<PGlite>().toExtend<StorageClient>();
    expectTypeOf<pg.Pool>().toExtend<Parameters<typeof migrate>[0]>();
    expectTypeOf<PGlite>().toExtend<Parameters<typeof migrate>[0]>();
    expectTypeOf<pg.Pool>().toExtend<ListenSource>();
    expectTypeOf<PGlite>().toExtend<ListenSource>();
  });

  it("a pg.Pool goes through preparedStatements, and what comes out is a storage client", () => {
    expectTypeOf<pg.Pool>().toExtend<Parameters<typeof preparedStatements>[0]>();
    expectTypeOf<ReturnType<typeof preparedStatements>>().toExtend<StorageClient>();
    expectTypeOf<PGlite>().not.toExtend<Parameters<typeof preparedStatements>[0]>();
  });

  it("a lone pg.Client or a borrowed pg.PoolClient goes through singleConnection", () => {
    expectTypeOf<pg.Client>().toExtend<Parameters<typeof singleConnection>[0]>();
    expectTypeOf<pg.PoolClient>().toExtend<Parameters<typeof singleConnection>[0]>();
    expectTypeOf<pg.Client>().not.toExtend<StorageClient>();
  });
});
