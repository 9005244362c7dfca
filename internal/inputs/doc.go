// Package inputs says what the FILEs of a command line are: each FILE's
// dialogs (a stream, a session file a format's Inputs claim, a folder of
// sessions, standard input), sniffed from their first records; the
// inputs a job reads them from; --files-from; the names of the dialogs of
// --out-dir; and the refusal to write an output over an input. It knows
// files and the registry's formats, not the protocol, and converts nothing.
package inputs
