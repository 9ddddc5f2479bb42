import { runStorageContract } from "../contract/run-storage-contract.js";
import { memoryStorage } from "./index.js";

runStorageContract("memory", async () => {
  const storage = memoryStorage();
  return { storage, raw: storage.raw, dispose: () => storage.close() };
});
