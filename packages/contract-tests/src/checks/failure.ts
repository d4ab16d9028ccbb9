/** Thrown inside a check to stop it with a failure; the runner turns it into the check's outcome. */
export class CheckFailure extends Error {
  override name = "CheckFailure";
}
