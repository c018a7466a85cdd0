/** Raised inside the parser; parseCronExpression turns it into an InvalidInputError with the caller's path. */
export class CronSyntaxError extends Error {}
