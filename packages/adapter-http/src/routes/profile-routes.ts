import {
  createProfile,
  createProfileInput,
  deleteProfile,
  getProfile,
  listProfiles,
  listProfilesQuery,
  updateProfile,
  updateProfileInput,
} from "@tidings/core";
import { fromResult } from "../answer.js";
import type { Route } from "../route.js";
import { idempotent } from "./idempotent.js";
import { callWithId, callWithIdAndBody, callWithQuery } from "./use-case-handlers.js";

/** The profile endpoints of docs/api.md. */
export const profileRoutes: Route[] = [
  {
    method: "GET",
    path: "/v1/profiles",
    scope: "profiles:read",
    doc: {
      operationId: "listProfiles",
      summary: "List profiles, oldest first, optionally by exact phone number or email.",
      tag: "Profiles",
      query: listProfilesQuery,
      success: { status: 200, schema: "ProfilePage", description: "A page of profiles." },
      errors: [400],
    },
    handle: callWithQuery(listProfiles),
  },
  {
    method: "POST",
    path: "/v1/profiles",
    scope: "profiles:write",
    doc: {
      operationId: "createProfile",
      summary: "Create a profile.",
      tag: "Profiles",
      body: {
        name: "CreateProfileRequest",
        schema: createProfileInput,
        example: {
          phone_number: "+1 415 555 0101",
          email: "ada@example.com",
          first_name: "Ada",
          last_name: "Lovelace",
          sms_marketing_consent: true,
          attributes: { plan: "pro", orders: 3 },
        },
      },
      success: { status: 201, schema: "Profile", description: "The created profile." },
      errors: [400, 409, 413, 415, 422],
      conflicts: ["phone_number_taken"],
      idempotent: true,
    },
    handle: (context) =>
      idempotent(context, "POST /v1/profiles", async (input) =>
        fromResult(await createProfile(context.deps, context.actor, input), 201),
      ),
  },
  {
    method: "GET",
    path: "/v1/profiles/{public_id}",
    scope: "profiles:read",
    doc: {
      operationId: "getProfile",
      summary: "Retrieve a profile, with the channels on which its number is suppressed.",
      tag: "Profiles",
      success: {
        status: 200,
        schema: "ProfileWithSuppressions",
        description: "The profile and its suppressions.",
      },
      errors: [404],
    },
    handle: callWithId("public_id", getProfile),
  },
  {
    method: "PATCH",
    path: "/v1/profiles/{public_id}",
    scope: "profiles:write",
    doc: {
      operationId: "updateProfile",
      summary: "Partially update a profile; omitted fields keep their values.",
      tag: "Profiles",
      body: {
        name: "UpdateProfileRequest",
        schema: updateProfileInput,
        example: { last_name: "King", viber_marketing_consent: true, attributes: { plan: null } },
      },
      success: { status: 200, schema: "Profile", description: "The updated profile." },
      errors: [400, 404, 409, 413, 415],
      conflicts: ["phone_number_taken", "profile_protected"],
    },
    handle: callWithIdAndBody("public_id", updateProfile),
  },
  {
    method: "DELETE",
    path: "/v1/profiles/{public_id}",
    scope: "profiles:write",
    doc: {
      operationId: "deleteProfile",
      summary: "Soft-delete a profile; it leaves every contact list.",
      tag: "Profiles",
      success: { status: 204, schema: null, description: "The profile was deleted." },
      errors: [404, 409],
      conflicts: ["profile_protected"],
    },
    handle: callWithId("public_id", deleteProfile, 204),
  },
];
