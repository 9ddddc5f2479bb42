import { ok } from "neverthrow";
import { type ShowOne, showOne } from "../support/show-one.js";
import { findProfile, profileNotFound } from "./find-profile.js";
import { type ProfileView, toProfileView } from "./profile-view.js";

/** One active profile of the caller's organization; anything else is 404. */
export const getProfile: ShowOne<ProfileView> = showOne(
  "getProfile",
  findProfile,
  profileNotFound,
  (profile) => ok(toProfileView(profile)),
);
