package jsonraw

import "strconv"

// Builder builds one JSON string literal from pieces: bodies of literals
// from the input, copied as they stand (escapes and all), and plain text,
// escaped here. The text of the input is never decoded and re-encoded on
// its way through. The literal is clean when every literal piece was. The
// zero Builder is ready after Reset; its buffer is reused.
type Builder struct {
	b     []byte
	dirty bool
	o     origin
}

// Reset starts a new literal.
func (b *Builder) Reset() {
	b.b = append(b.b[:0], '"')
	b.dirty = false
}

// Lit appends the text of the literal l.
func (b *Builder) Lit(l Literal) {
	b.b = append(b.b, l.Body()...)
	b.dirty = b.dirty || !l.Clean()
}

// Text appends plain text.
func (b *Builder) Text(s string) { b.b = AppendEscaped(b.b, s) }

// Line starts a new line: a newline, unless nothing is written yet.
func (b *Builder) Line() {
	if len(b.b) > 1 { // b.b holds the opening quote
		b.b = append(b.b, '\\', 'n')
	}
}

// Empty reports whether nothing is written yet.
func (b *Builder) Empty() bool { return len(b.b) <= 1 }

// Byte appends one printable ASCII character other than '"' and '\'.
func (b *Builder) Byte(c byte) { b.b = append(b.b, c) }

// Int appends n in decimal.
func (b *Builder) Int(n int64) { b.b = strconv.AppendInt(b.b, n, 10) }

// Body returns the literal's body so far, escapes kept.
func (b *Builder) Body() []byte {
	if len(b.b) == 0 {
		return nil
	}
	return b.b[1:]
}

// Literal returns the literal built so far. It is borrowed from the
// Builder: valid until the next call that changes it.
func (b *Builder) Literal() Literal {
	if len(b.b) == 0 {
		return Literal{}
	}
	l := append(b.b, '"')
	b.o.clean, b.o.ix.rec = !b.dirty, l
	return Literal{b: l, o: &b.o}
}

// ValueBuilder builds a JSON value (an object or an array) from plain keys
// and strings and from values and literals of the input, which are copied
// as they stand. Commas are placed by the builder; the caller begins and
// ends each object and array and gives every object member a key. The value
// is clean when every piece from the input was. The zero ValueBuilder is
// ready after Reset; its buffer is reused.
type ValueBuilder struct {
	b     []byte
	comma bool // the next member or element needs a comma before it
	dirty bool
	o     origin
}

// Reset starts a new value.
func (b *ValueBuilder) Reset() {
	b.b, b.comma, b.dirty = b.b[:0], false, false
}

func (b *ValueBuilder) sep() {
	if b.comma {
		b.b = append(b.b, ',')
	}
	b.comma = true
}

// BeginObject opens an object (a member's value after Key, an element, or
// the value itself).
func (b *ValueBuilder) BeginObject() { b.begin('{') }

// EndObject closes the object opened last.
func (b *ValueBuilder) EndObject() { b.end('}') }

// BeginArray opens an array.
func (b *ValueBuilder) BeginArray() { b.begin('[') }

// EndArray closes the array opened last.
func (b *ValueBuilder) EndArray() { b.end(']') }

// begin opens a container: its first member or element takes no comma.
func (b *ValueBuilder) begin(bracket byte) {
	b.sep()
	b.b = append(b.b, bracket)
	b.comma = false
}

// end closes a container, which is a value: the next one takes a comma.
func (b *ValueBuilder) end(bracket byte) {
	b.b = append(b.b, bracket)
	b.comma = true
}

// Key writes a member's key; its value comes next.
func (b *ValueBuilder) Key(k string) {
	b.sep()
	b.b = AppendQuoted(b.b, k)
	b.b = append(b.b, ':')
	b.comma = false
}

// KeyLit writes a member's key taken from the input.
func (b *ValueBuilder) KeyLit(l Literal) {
	b.sep()
	b.b = append(b.b, l.b...)
	b.b = append(b.b, ':')
	b.comma = false
	b.dirty = b.dirty || !l.Clean()
}

// Value writes a value of the input.
func (b *ValueBuilder) Value(v Value) {
	b.sep()
	b.b = append(b.b, v.b...)
	b.dirty = b.dirty || !v.Clean()
}

// Lit writes a string of the input.
func (b *ValueBuilder) Lit(l Literal) {
	b.sep()
	b.b = append(b.b, l.b...)
	b.dirty = b.dirty || !l.Clean()
}

// String writes plain text as a string.
func (b *ValueBuilder) String(s string) {
	b.sep()
	b.b = AppendQuoted(b.b, s)
}

// Result returns the value built. It is borrowed from the builder: valid
// until the next call that changes it.
func (b *ValueBuilder) Result() Value {
	b.o.clean, b.o.ix.rec = !b.dirty, b.b
	return Value{b: b.b, o: &b.o}
}
