// What both SQL adapters share: the tables' columns, the row decoders, and the codec each
// database supplies for what differs. Internal to the adapters; no driver is imported here.
export type { SqlCodec, SqlRow } from "./codec.js";
export { CorruptRowError } from "./corrupt-row-error.js";
export { byDue, isoPlus } from "./delivery-order.js";
export { toJson, toJsonOrNull } from "./json.js";
export { type SqlRecords, sqlRecords } from "./records.js";
export { type JsonShape, type RowReader, rowReader } from "./row-reader.js";
export {
  insertColumns,
  type SqlTable,
  type SqlTableName,
  selectColumns,
  selectLists,
  sqlTables,
} from "./tables.js";
