import { ok } from "neverthrow";
import { notFound } from "../errors.js";
import { type ShowOne, showOne } from "../support/show-one.js";
import { findProfile } from "./find-profile.js";
import { type ProfileView, toProfileView } from "./profile-view.js";

/** One active profile of the caller's organization; anything else is 404. */
export const getProfile: ShowOne<ProfileView> = showOne(
  "getProfile",
  (repositories, organizationId, id) => findProfile(repositories.profiles, organizationId, id),
  (id) => notFound("profile", id, "profile_not_found"),
  (profile) => ok(toProfileView(profile)),
);
