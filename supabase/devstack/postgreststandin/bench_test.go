package postgreststandin

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkSimpleSelect measures a filtered, ordered select with an
// authenticated (HS256) token through the whole handler: JWT check, parse,
// plan, one transaction with role switch, and JSON rendered by PostgreSQL.
func BenchmarkSimpleSelect(b *testing.B) {
	tok := token(b, "hs", userClaims("11111111-1111-1111-1111-111111111111"))
	target := escapeTarget("/films?select=id,title,year,directors!director_id(name)&year=gte.1960&status=eq.published&order=year.desc&limit=10")
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodGet, target, nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		rec := httptest.NewRecorder()
		testHandler.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	}
}
