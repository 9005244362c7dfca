package cli

import (
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// NotACommand refuses a first FILE that is a mistyped subcommand
// ("valdiate", "rnu", "version"): a name that is no existing file and is
// close to a subcommand's. Taken for a FILE, it would convert nothing into
// the default dialog, over the live one. A name that exists is a FILE,
// whatever it is called; so is one that looks like a path.
func NotACommand(root *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	arg := args[0]
	if arg == "-" || strings.ContainsAny(arg, `/.\`) {
		return nil
	}
	if _, err := os.Lstat(arg); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if closeTo(arg, "version") {
		return Refusef("unknown command %q; did you mean \"--version\"?", arg)
	}
	if best := ClosestCommand(root, arg); best != "" {
		return Refusef("unknown command %q; did you mean %q?", arg, best)
	}
	return nil
}

// ClosestCommand is the name of root's command (or alias) that s is a
// plausible typo of, or "".
func ClosestCommand(root *cobra.Command, s string) string {
	var names []string
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() || c.Name() == "help" {
			names = append(append(names, c.Name()), c.Aliases...)
		}
	}
	return Closest(s, names)
}

// CommandNames lists root's commands, for a message.
func CommandNames(root *cobra.Command) []string {
	var names []string
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	return names
}

// Closest is the name that s is a plausible typo of (closeTo), the
// nearest if several are, or "".
func Closest(s string, names []string) string {
	best, bestDist := "", 0
	for _, n := range names {
		if d := editDistance(strings.ToLower(s), n); closeTo(s, n) && (best == "" || d < bestDist) {
			best, bestDist = n, d
		}
	}
	return best
}

// FlagError turns pflag's errors into ours (exit 2), said for a person:
//
//   - a word that is a typo of a command, before a flag that command has
//     ("exprot --html x"), is told as the mistyped command, not the flag;
//   - an unknown flag close to one of the command's is "did you mean";
//   - a flag of another command names it ("--html is export's flag");
//   - a value that does not parse says what is wanted, without Go's
//     parser's words (strconv.ParseInt: parsing "abc").
func FlagError(cmd *cobra.Command, err error) error {
	var missing *pflag.NotExistError
	var invalid *pflag.InvalidValueError
	switch {
	case errors.As(err, &missing):
		if !cmd.HasParent() {
			if e := NotACommand(cmd, cmd.Flags().Args()); e != nil {
				return e
			}
		}
		given := missing.GetSpecifiedName()
		if missing.GetSpecifiedShortnames() != "" {
			return Usagef("unknown flag -%s in -%s", given, missing.GetSpecifiedShortnames())
		}
		var names []string
		cmd.Flags().VisitAll(func(f *pflag.Flag) {
			if !f.Hidden {
				names = append(names, f.Name)
			}
		})
		if best := Closest(given, names); best != "" {
			return Refusef("unknown flag --%s; did you mean --%s?", given, best)
		}
		for _, other := range cmd.Root().Commands() {
			if other != cmd && other.IsAvailableCommand() && other.Flags().Lookup(given) != nil && cmd.Flags().Lookup(given) == nil {
				return Refusef("unknown flag --%s here: it is a flag of %s (%s %s --%s …)", given, other.Name(), Program, other.Name(), given)
			}
		}
		return Usagef("unknown flag --%s", given)
	case errors.As(err, &invalid):
		return Refusef("--%s %q: %s", invalid.GetFlag().Name, invalid.GetValue(), wanted(invalid))
	}
	return &UsageError{Err: err}
}

// wanted says what a flag's value should have been: our own values say it
// themselves; Go's parsers' errors are put in words.
func wanted(e *pflag.InvalidValueError) string {
	var num *strconv.NumError
	if !errors.As(e, &num) {
		return errors.Unwrap(e).Error()
	}
	switch {
	case errors.Is(num.Err, strconv.ErrRange):
		return "out of range"
	case e.GetFlag().Value.Type() == "bool":
		return "want true or false"
	}
	return "want a whole number"
}

// closeTo reports whether s is a plausible typo of the command name: one
// edit away for short names, two for longer ones.
func closeTo(s, name string) bool {
	allowed := 2
	if len(name) <= 4 {
		allowed = 1
	}
	return editDistance(strings.ToLower(s), name) <= allowed
}

// editDistance is the optimal string alignment distance: insertions,
// deletions, substitutions and swaps of neighbours ("rnu" is one from "run").
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
