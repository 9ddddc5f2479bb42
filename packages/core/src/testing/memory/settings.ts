import type { SettingsRepository } from "../../ports.js";
import type { MemoryScope } from "./scope.js";
import { clone } from "./state.js";

/** Organization settings in memory, one record per organization. */
export function memorySettings(scope: MemoryScope): SettingsRepository {
  return {
    get: (organizationId) =>
      scope.read("settings.get", (s) => {
        const record = s.settings.get(organizationId);
        return record === undefined ? null : clone(record);
      }),
    put: (record) =>
      scope.write("settings.put", (s) => {
        s.settings.set(record.organizationId, clone(record));
      }),
  };
}
