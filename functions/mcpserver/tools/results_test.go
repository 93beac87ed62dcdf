package tools

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// filled returns a value of t with every field set (pointers non-nil,
// slices of two elements, numbers and strings that differ per field), so
// every key of a result is encoded.
func filled(t reflect.Type, seed *int) reflect.Value {
	*seed++
	v := reflect.New(t).Elem()
	switch {
	case t == rawMessageType:
		v.SetBytes([]byte(`{"b":1,"a":[true,null]}`))
	case t == nullValuePtr:
		// always nil: JSON null
	case t.Kind() == reflect.Pointer:
		v.Set(filled(t.Elem(), seed).Addr())
	case t.Kind() == reflect.Struct:
		for i := range t.NumField() {
			if t.Field(i).IsExported() {
				v.Field(i).Set(filled(t.Field(i).Type, seed))
			}
		}
	case t.Kind() == reflect.Slice:
		v.Set(reflect.Append(v, filled(t.Elem(), seed), filled(t.Elem(), seed)))
	case t.Kind() == reflect.String:
		v.SetString(strings.Repeat("x<&>\u2028", *seed%3+1))
	case t.Kind() == reflect.Bool:
		v.SetBool(*seed%2 == 0)
	case t.Kind() == reflect.Float64:
		v.SetFloat(float64(*seed) + 0.25)
	case t.Kind() == reflect.Int:
		v.SetInt(int64(*seed))
	}
	return v
}

// TestTypedResultAgreesWithEncodingJSON: for every staff tool's result
// type, filled in full, typedResult gives what encoding/json's text read
// back by jsjson.Decode gives: the same keys in the same order and the
// same values.
func TestTypedResultAgreesWithEncodingJSON(t *testing.T) {
	for _, tool := range New(Options{}).Tools() {
		if tool.resultType == nil {
			continue
		}
		t.Run(tool.Name, func(t *testing.T) {
			seed := 0
			v := filled(tool.resultType, &seed).Interface()
			got, err := typedResult(v)
			if err != nil {
				t.Fatal(err)
			}
			text, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			want, err := jsjson.Decode(text)
			if err != nil {
				t.Fatal(err)
			}
			gotText, _ := jsjson.MarshalIndent(got)
			wantText, _ := jsjson.MarshalIndent(want)
			if diff := cmp.Diff(string(wantText), string(gotText)); diff != "" {
				t.Errorf("typedResult differs from encoding/json (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTypedResult(t *testing.T) {
	type inner struct {
		N int `json:"n"`
	}
	type sample struct {
		Z        string          `json:"z"`
		A        *float64        `json:"a"`
		Inf      float64         `json:"inf"`
		List     []inner         `json:"list"`
		Nil      []inner         `json:"nil"`
		Omitted  *[]string       `json:"omitted,omitempty"`
		Present  *[]string       `json:"present,omitempty"`
		Count    *int            `json:"count,omitempty"`
		Raw      json.RawMessage `json:"raw"`
		NoRaw    json.RawMessage `json:"no_raw"`
		Null     *nullValue      `json:"null"`
		Untagged bool
		Skipped  string `json:"-"`
		hidden   string
	}
	zero := 0
	v := sample{
		Z: "<a & b>\u2028", Inf: math.Inf(1), List: []inner{{1}, {2}},
		Present: &[]string{}, Count: &zero, Raw: json.RawMessage(`{"b":"\ud800","a":1e400}`),
		Skipped: "x", hidden: "y",
	}
	got, err := typedResult(&v)
	if err != nil {
		t.Fatal(err)
	}
	text, err := jsjson.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"z":"<a & b>` + "\u2028" + `","a":null,"inf":null,"list":[{"n":1},{"n":2}],"nil":[],"present":[],"count":0,` +
		`"raw":{"b":"\ud800","a":null},"no_raw":null,"null":null,"Untagged":false}`
	if diff := cmp.Diff(want, string(text)); diff != "" {
		t.Errorf("typedResult (-want +got):\n%s", diff)
	}

	if got, err := typedResult((*sample)(nil)); got != nil || err != nil {
		t.Errorf("nil pointer: got %v, %v; want nil, nil", got, err)
	}
	if _, err := typedResult(map[string]int{"a": 1}); err == nil {
		t.Error("a map was accepted; its key order is not kept")
	}
}

// TestDecodeTypedRefusesUnknownKeys: a key the shared submission code adds
// that submissionResult lacks is an error, not a key silently dropped.
func TestDecodeTypedRefusesUnknownKeys(t *testing.T) {
	v, err := jsjson.Decode([]byte(`[{"id":1,"assignment_id":2,"created_at":"t","sha":null,"repository":null,"ordinal":1,"is_active":true,` +
		`"student_profile_id":null,"student_name":null,"grader_result":null,"file_count":0,"file_names":[],"new_key":1}]`))
	if err != nil {
		t.Fatal(err)
	}
	var out []submissionResult
	if err := decodeTyped(v, &out); err == nil || !strings.Contains(err.Error(), "new_key") {
		t.Errorf("decodeTyped: %v, want an error naming new_key", err)
	}
}
