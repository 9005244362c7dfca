// Package convert runs conversions: a Job reads its inputs (or a Feed:
// --follow, run's agent) into one dialog and says what happened, as a
// Result and one error carrying the exit code; a Batch runs a job per
// source into a folder (--out-dir); the record accounting of --stats is
// told from their results. Every command that converts builds its Job with
// New, from a Spec.
package convert
