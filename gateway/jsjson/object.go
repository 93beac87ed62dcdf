package jsjson

// Object is a JSON object that remembers the order in which keys were first
// set, as a JavaScript object does.
type Object struct {
	keys  []string
	vals  []any
	index map[string]int // built lazily once the object grows past linearLimit
	// overflow holds the source text of members whose number was too
	// large for a double (decoded as ±Inf); see OverflowText.
	overflow map[string]string
}

// linearLimit is the size up to which a linear scan beats a map look-up.
const linearLimit = 12

// NewObject returns an empty object with room for n keys.
func NewObject(n int) *Object {
	return &Object{keys: make([]string, 0, n), vals: make([]any, 0, n)}
}

func (o *Object) find(key string) int {
	if o.index != nil {
		if i, ok := o.index[key]; ok {
			return i
		}
		return -1
	}
	for i, k := range o.keys {
		if k == key {
			return i
		}
	}
	return -1
}

// Set assigns v to key. A new key goes last; an existing key keeps its
// position and takes the new value, as assignment does in JavaScript.
// It returns o so literals can be built in one expression.
func (o *Object) Set(key string, v any) *Object {
	if o.overflow != nil {
		delete(o.overflow, key)
	}
	if i := o.find(key); i >= 0 {
		o.vals[i] = v
		return o
	}
	o.keys = append(o.keys, key)
	o.vals = append(o.vals, v)
	if o.index != nil {
		o.index[key] = len(o.keys) - 1
	} else if len(o.keys) > linearLimit {
		o.index = make(map[string]int, len(o.keys)*2)
		for i, k := range o.keys {
			o.index[k] = i
		}
	}
	return o
}

// OverflowText returns the text a decoded member was written with in the
// input when it is a number too large for a double, which Decode (like
// JSON.parse) turns into ±Inf and JSON.stringify prints as null. A caller
// that must echo such a value exactly as sent (a JSON-RPC id) writes this
// text instead. ok is false for every other member, and for any member
// assigned with Set after decoding.
func (o *Object) OverflowText(key string) (text string, ok bool) {
	if o == nil || o.overflow == nil {
		return "", false
	}
	text, ok = o.overflow[key]
	return text, ok
}

// Get returns the value stored under key and whether the key is present.
func (o *Object) Get(key string) (any, bool) {
	if o == nil {
		return nil, false
	}
	if i := o.find(key); i >= 0 {
		return o.vals[i], true
	}
	return nil, false
}

// Value returns the value under key, or nil when absent.
func (o *Object) Value(key string) any {
	v, _ := o.Get(key)
	return v
}

// String returns the value under key when it is a string.
func (o *Object) String(key string) (string, bool) {
	s, ok := o.Value(key).(string)
	return s, ok
}

// Number returns the value under key when it is a number.
func (o *Object) Number(key string) (float64, bool) {
	f, ok := o.Value(key).(float64)
	return f, ok
}

// Object returns the value under key when it is an object.
func (o *Object) Object(key string) (*Object, bool) {
	c, ok := o.Value(key).(*Object)
	return c, ok && c != nil
}

// Array returns the value under key when it is an array.
func (o *Object) Array(key string) ([]any, bool) {
	a, ok := o.Value(key).([]any)
	return a, ok
}

// Delete removes key, keeping the order of the others.
func (o *Object) Delete(key string) {
	i := o.find(key)
	if i < 0 {
		return
	}
	o.keys = append(o.keys[:i], o.keys[i+1:]...)
	o.vals = append(o.vals[:i], o.vals[i+1:]...)
	if o.index != nil {
		o.index = nil
		if len(o.keys) > linearLimit {
			o.index = make(map[string]int, len(o.keys)*2)
			for j, k := range o.keys {
				o.index[k] = j
			}
		}
	}
}

// Len returns the number of keys.
func (o *Object) Len() int {
	if o == nil {
		return 0
	}
	return len(o.keys)
}

// Keys returns the keys in insertion order. The slice must not be modified.
func (o *Object) Keys() []string {
	if o == nil {
		return nil
	}
	return o.keys
}

// String returns v as JavaScript's String(v) would print a JSON value that
// is a string or number; other kinds yield their compact JSON text.
func String(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return string(AppendNumber(nil, x))
	default:
		b, err := Marshal(v)
		if err != nil {
			return ""
		}
		return string(b)
	}
}
