package dispatch

import (
	"time"

	"github.com/ssebench/sse-dialog-convert/internal/dialog"
)

// readClock is the writer's clock as the converter sees input arrive. The
// lines of one read of the input arrived together, so they have one time:
// the clock is read at most once per read, when an entry first needs it.
// It is used under the converter's lock only.
type readClock struct {
	clock dialog.Clock
	now   time.Time
	read  bool
}

func (c *readClock) Now() time.Time {
	if !c.read {
		c.now, c.read = c.clock.Now(), true
	}
	return c.now
}

// arrived says new input came, or time passed without any (a Close): the
// next entry reads the clock afresh.
func (c *readClock) arrived() { c.read = false }
