package jsjson

import "testing"

// TestOverflowText: the source text of a member whose number overflows a
// double is kept (issue 15 item 4), and only for such members.
func TestOverflowText(t *testing.T) {
	for _, tt := range []struct {
		in, key, want string
		ok            bool
	}{
		{`{"id":1e999}`, "id", "1e999", true},
		{`{"id" :  -1.5E+400 }`, "id", "-1.5E+400", true},
		{`{"id":1e308}`, "id", "", false},
		{`{"id":1e-999}`, "id", "", false},
		{`{"id":"1e999"}`, "id", "", false},
		{`{"id":1e999,"id":2}`, "id", "", false},
		{`{"id":2,"id":1e999}`, "id", "1e999", true},
		{`{"x":1e999}`, "id", "", false},
	} {
		v, err := Decode([]byte(tt.in))
		if err != nil {
			t.Fatal(err)
		}
		got, ok := v.(*Object).OverflowText(tt.key)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s: OverflowText(%q) = %q, %v; want %q, %v", tt.in, tt.key, got, ok, tt.want, tt.ok)
		}
	}
	o, _ := Decode([]byte(`{"id":1e999}`))
	o.(*Object).Set("id", 1.0)
	if _, ok := o.(*Object).OverflowText("id"); ok {
		t.Error("Set did not clear the overflow text")
	}
	if _, ok := (*Object)(nil).OverflowText("id"); ok {
		t.Error("nil object has overflow text")
	}
}
