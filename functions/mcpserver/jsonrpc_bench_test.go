package mcpserver

import (
	"strconv"
	"strings"
	"testing"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/tools"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// parseFields reads what dispatch and callTool read from one message: id,
// method, params.name and params.arguments. It keeps the benchmark honest
// about the look-ups without running a method.
func parseFields(m *jsjson.Object) (id any, method string, name string, args *jsjson.Object) {
	id = m.Value("id")
	method, _ = m.String("method")
	if p, ok := m.Object("params"); ok && p != nil {
		v, present := p.Get("name")
		name = jsString(v, present)
		args, _ = p.Object("arguments")
	}
	return id, method, name, args
}

// BenchmarkParseRequest measures the JSON-RPC parsing of a POST body:
// jsjson.Decode of the body, batch classification, and the field look-ups
// dispatch makes, for the message shapes clients send most.
func BenchmarkParseRequest(b *testing.B) {
	var batch strings.Builder
	batch.WriteByte('[')
	for i := range 10 {
		if i > 0 {
			batch.WriteByte(',')
		}
		batch.WriteString(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i) +
			`,"method":"tools/call","params":{"name":"get_submission","arguments":{"submission_id":3,"class_id":1,"include_files":true}}}`)
	}
	batch.WriteByte(']')
	cases := []struct{ name, body string }{
		{"initialize", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":true},"sampling":{}},"clientInfo":{"name":"claude-ai","version":"0.1.0"}}}`},
		{"tools_list", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`},
		{"tools_call", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_discussion_threads","arguments":{"class_id":1,"assignment_id":1,"is_question":true,"search_query":"café ☕ linked list","limit":20}}}`},
		{"batch_10_calls", batch.String()},
	}
	for _, tc := range cases {
		body := []byte(tc.body)
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				msg, err := jsjson.Decode(body)
				if err != nil {
					b.Fatal(err)
				}
				switch m := msg.(type) {
				case *jsjson.Object:
					if _, method, _, _ := parseFields(m); method == "" {
						b.Fatal("no method")
					}
				case []any:
					for _, el := range m {
						if classify(el) != entryRequest {
							b.Fatal("batch element not a request")
						}
						parseFields(el.(*jsjson.Object))
					}
				default:
					b.Fatalf("unexpected %T", msg)
				}
			}
		})
	}
}

// largeSubmission builds a get_submission result with files and test
// output: files source files of fileBytes each, and tests tests with
// outputBytes of output each. The text mixes ASCII with characters the
// encoder must escape or copy as multi-byte UTF-8.
func largeSubmission(files, fileBytes, tests, outputBytes int) *jsjson.Object {
	line := "\tSystem.out.println(\"héllo, <wörld> & 日本\"); // line\n"
	fileList := make([]any, 0, files)
	for i := range files {
		fileList = append(fileList, jsjson.NewObject(5).
			Set("id", float64(100+i)).
			Set("name", "src/main/java/edu/neu/ccs/Example"+strconv.Itoa(i)+".java").
			Set("size", float64(fileBytes)).
			Set("is_binary", false).
			Set("contents", strings.Repeat(line, fileBytes/len(line)+1)[:fileBytes]))
	}
	outLine := "expected:<[1, 2, 3]> but was:<[1, 2]>\n\tat Test.run(Test.java:42)\n"
	testList := make([]any, 0, tests)
	for i := range tests {
		testList = append(testList, jsjson.NewObject(7).
			Set("id", float64(i)).
			Set("name", "test"+strconv.Itoa(i)).
			Set("part", "Part "+strconv.Itoa(i%4)).
			Set("score", float64(i%3)).
			Set("max_score", float64(2)).
			Set("output_format", "text").
			Set("output", strings.Repeat(outLine, outputBytes/len(outLine)+1)[:outputBytes]))
	}
	return jsjson.NewObject(6).
		Set("id", float64(3)).
		Set("created_at", "2026-01-17T10:00:00+00:00").
		Set("sha", strings.Repeat("3", 40)).
		Set("grader_result", jsjson.NewObject(4).
			Set("score", float64(100)).
			Set("max_score", float64(100)).
			Set("lint_output", strings.Repeat("ok\n", 100)).
			Set("tests", testList)).
		Set("files", fileList).
		Set("file_count", float64(files))
}

// BenchmarkEncodeToolResult measures the response path of a large
// tools/call: the result pretty-printed as the original's
// JSON.stringify(result, null, 2), wrapped as MCP text content (escaped a
// second time), and framed as a JSON-RPC response. The structured cases
// add the compact structuredContent copy that revisions 2025-06-18 and
// later carry.
func BenchmarkEncodeToolResult(b *testing.B) {
	cases := []struct {
		name       string
		v          *jsjson.Object
		structured bool
	}{
		{"small_6_files", largeSubmission(6, 2<<10, 8, 512), false},
		{"large_60_files_200_tests", largeSubmission(60, 16<<10, 200, 4<<10), false},
		{"large_60_files_200_tests_structured", largeSubmission(60, 16<<10, 200, 4<<10), true},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			encode := func() []byte {
				text, err := jsjson.MarshalIndent(tc.v)
				if err != nil {
					b.Fatal(err)
				}
				var structured []byte
				if tc.structured {
					if structured, err = jsjson.Marshal(tools.StructuredResult(tc.v)); err != nil {
						b.Fatal(err)
					}
				}
				resp := resultResponse(float64(7), toolCallResult(text, structured))
				out, err := resp.AppendJSON(make([]byte, 0, 128+len(resp.Result)))
				if err != nil {
					b.Fatal(err)
				}
				return out
			}
			b.SetBytes(int64(len(encode())))
			b.ReportAllocs()
			for b.Loop() {
				encode()
			}
		})
	}
}
