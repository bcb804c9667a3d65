/**
 * Who runs this execution, for the bulk run's ownership: a random id kept in the user's own user
 * properties, which no other user can read, and the user's e-mail address to show to other editors.
 *
 * Why not Session: Session.getTemporaryActiveUserKey() "rotates every 30 days", so a run paused longer would lose
 * its owner; Session.getActiveUser().getEmail() needs the userinfo.email scope and "returns a blank string if
 * security policies do not allow access to the user's email address" (developers.google.com/apps-script/reference/
 * base/session, .../base/user): fine to show a name, not to decide who pays.
 */

import { RUNNER_ID_PROPERTY } from '../core/propertyNames';

/** This user's runner id, or null until one is made. */
export function runnerId(): string | null {
  return PropertiesService.getUserProperties().getProperty(RUNNER_ID_PROPERTY);
}

/** This user's runner id, made and saved on first use. */
export function ensureRunnerId(): string {
  const props = PropertiesService.getUserProperties();
  const stored = props.getProperty(RUNNER_ID_PROPERTY);
  if (stored) return stored;
  const id = Utilities.getUuid();
  props.setProperty(RUNNER_ID_PROPERTY, id);
  return id;
}

/** The user's e-mail address, or '' where Apps Script does not give it. */
export function runnerEmail(): string {
  try {
    return Session.getActiveUser().getEmail() || '';
  } catch {
    return '';
  }
}
