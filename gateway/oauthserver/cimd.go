package oauthserver

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
)

// Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document):
// a client_id that is an https URL names a JSON document the client hosts.
// Fetching a URL chosen by an unauthenticated caller is a server-side
// request forgery risk, so the fetch:
//
//   - accepts only https URLs with a path, no fragment, user info or dot
//     segments;
//   - connects only to public addresses: the dialer checks the address it
//     is about to connect to, after DNS resolution, so a name that resolves
//     to 127.0.0.1, 10.x, 169.254.169.254 or fd00:: (or any other special-purpose range) is refused (unless
//     AllowPrivateCIMD is set, for tests);
//   - follows no redirects, uses no proxy, reads at most 5 KiB and gives up
//     after CIMDTimeout;
//   - caches documents for their Cache-Control max-age (bounded to
//     [1 min, 24 h], 5 min when absent; no-store is honoured by not
//     caching) in an LRU cache of cimdMaxEntries, so a busy client costs
//     one fetch.

const (
	cimdMaxBytes   = 5 << 10
	cimdMaxEntries = 1024
	cimdDefaultTTL = 5 * time.Minute
	cimdMinTTL     = time.Minute
	cimdMaxTTL     = 24 * time.Hour
	cimdFailureTTL = 30 * time.Second
)

// cimdEntry is a cached answer. Its expiry is its own: each document sets
// its lifetime (max-age), and failures get cimdFailureTTL, while
// expirable's TTL is one per cache and on the wall clock, not f.now.
type cimdEntry struct {
	client  *Client
	err     error
	expires time.Time
}

type cimdFetcher struct {
	hc           *http.Client
	now          func() time.Time
	allowPrivate bool
	// cache drops the least recently used entry when full. An expired
	// entry is never served; the next fetch's answer replaces it.
	cache *lru.Cache[string, cimdEntry]
}

func newCIMDFetcher(timeout time.Duration, allowPrivate bool, roots *tls.Config, now func() time.Time) *cimdFetcher {
	cache, err := lru.New[string, cimdEntry](cimdMaxEntries)
	if err != nil {
		panic(err) // only for a size ≤ 0
	}
	f := &cimdFetcher{now: now, allowPrivate: allowPrivate, cache: cache}
	dialer := &net.Dialer{Timeout: timeout, Control: f.control}
	tr := &http.Transport{
		Proxy:                 nil, // a proxy would connect on our behalf, past the address check
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: timeout,
		MaxIdleConns:          16,
		IdleConnTimeout:       30 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	if roots != nil {
		tr.TLSClientConfig = roots
	}
	f.hc = &http.Client{
		Transport:     tr,
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return f
}

var errPrivateAddress = errors.New("oauthserver: client metadata URL resolves to a non-public address")

// control runs just before each connect, with the resolved address.
func (f *cimdFetcher) control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return err
	}
	if !f.allowPrivate && !isPublicAddr(ap.Addr()) {
		return errPrivateAddress
	}
	return nil
}

// specialPurpose are the ranges of the IANA IPv4 and IPv6 Special-Purpose
// Address Registries, plus multicast and the IPv4-compatible block. None is
// refused for being unroutable alone: several embed or translate to an
// IPv4 address (IPv4-mapped and -compatible, NAT64, 6to4, Teredo), so a
// name resolving to one of them could reach private IPv4 space through a
// relay or the host's own stack. Even the registries' "globally reachable"
// entries (AS112, AMT, TURN anycast) are no place for a client's metadata.
var specialPurpose = []netip.Prefix{
	// IPv4
	netip.MustParsePrefix("0.0.0.0/8"),          // "this network"
	netip.MustParsePrefix("10.0.0.0/8"),         // private use
	netip.MustParsePrefix("100.64.0.0/10"),      // shared address space (carrier-grade NAT)
	netip.MustParsePrefix("127.0.0.0/8"),        // loopback
	netip.MustParsePrefix("169.254.0.0/16"),     // link local (cloud metadata services)
	netip.MustParsePrefix("172.16.0.0/12"),      // private use
	netip.MustParsePrefix("192.0.0.0/24"),       // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),       // documentation (TEST-NET-1)
	netip.MustParsePrefix("192.31.196.0/24"),    // AS112-v4
	netip.MustParsePrefix("192.52.193.0/24"),    // AMT
	netip.MustParsePrefix("192.88.99.0/24"),     // deprecated 6to4 relay anycast
	netip.MustParsePrefix("192.168.0.0/16"),     // private use
	netip.MustParsePrefix("192.175.48.0/24"),    // direct delegation AS112 service
	netip.MustParsePrefix("198.18.0.0/15"),      // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"),    // documentation (TEST-NET-2)
	netip.MustParsePrefix("203.0.113.0/24"),     // documentation (TEST-NET-3)
	netip.MustParsePrefix("224.0.0.0/4"),        // multicast
	netip.MustParsePrefix("240.0.0.0/4"),        // reserved
	netip.MustParsePrefix("255.255.255.255/32"), // limited broadcast
	// IPv6
	netip.MustParsePrefix("::/96"),             // IPv4-compatible (deprecated), with :: and ::1
	netip.MustParsePrefix("::ffff:0:0/96"),     // IPv4-mapped
	netip.MustParsePrefix("64:ff9b::/96"),      // IPv4-IPv6 translation (NAT64)
	netip.MustParsePrefix("64:ff9b:1::/48"),    // local-use IPv4-IPv6 translation
	netip.MustParsePrefix("100::/64"),          // discard-only
	netip.MustParsePrefix("100:0:0:1::/64"),    // dummy prefix
	netip.MustParsePrefix("2001::/23"),         // IETF protocol assignments, with Teredo 2001::/32
	netip.MustParsePrefix("2001:db8::/32"),     // documentation
	netip.MustParsePrefix("2002::/16"),         // 6to4
	netip.MustParsePrefix("2620:4f:8000::/48"), // direct delegation AS112 service
	netip.MustParsePrefix("3fff::/20"),         // documentation
	netip.MustParsePrefix("5f00::/16"),         // segment routing (SRv6) SIDs
	netip.MustParsePrefix("fc00::/7"),          // unique local
	netip.MustParsePrefix("fe80::/10"),         // link-local unicast
	netip.MustParsePrefix("fec0::/10"),         // site-local (deprecated)
	netip.MustParsePrefix("ff00::/8"),          // multicast
}

// isPublicAddr reports whether a is outside every special-purpose range.
// An IPv4-mapped address is refused as such rather than judged by the
// IPv4 address inside, since the dialer never produces one for a real
// IPv4 destination.
func isPublicAddr(a netip.Addr) bool {
	if !a.IsValid() {
		return false
	}
	a = a.WithZone("")
	for _, p := range specialPurpose {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

func cimdInvalid(desc string) *Error {
	return oauthErr(http.StatusUnauthorized, codeInvalidClient, desc)
}

// checkCIMDURL applies the draft's rules to the URL itself.
func checkCIMDURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return cimdInvalid("A client ID metadata document URL must be an https URL")
	}
	if u.User != nil || u.Fragment != "" || strings.Contains(raw, "#") {
		return cimdInvalid("A client ID metadata document URL must not contain user information or a fragment")
	}
	if u.Path == "" || u.Path == "/" {
		return cimdInvalid("A client ID metadata document URL must have a path")
	}
	for _, seg := range strings.Split(u.Path, "/") {
		if seg == "." || seg == ".." {
			return cimdInvalid("A client ID metadata document URL must not contain dot segments")
		}
	}
	if len(raw) > 2048 {
		return cimdInvalid("A client ID metadata document URL must be at most 2048 characters")
	}
	return nil
}

// get returns the client a metadata document URL describes.
func (f *cimdFetcher) get(ctx context.Context, id string) (*Client, error) {
	if err := checkCIMDURL(id); err != nil {
		return nil, err
	}
	now := f.now()
	if e, ok := f.cache.Get(id); ok && now.Before(e.expires) {
		return e.client, e.err
	}
	c, ttl, err := f.fetch(ctx, id)
	if err != nil {
		// Remember failures briefly, so a client_id pointing at a slow
		// or refusing host cannot make every request wait for it.
		ttl = cimdFailureTTL
	}
	if ttl > 0 {
		f.cache.Add(id, cimdEntry{client: c, err: err, expires: now.Add(ttl)})
	}
	return c, err
}

// cimdDocument is the part of the document the server reads.
type cimdDocument struct {
	ClientID     *string  `json:"client_id"`
	ClientName   string   `json:"client_name"`
	RedirectURIs []string `json:"redirect_uris"`
	// TokenEndpointAuthMethod is the method the client prefers (RFC 7591);
	// TokenEndpointAuthMethodsSupported (OpenID Connect RP Metadata
	// Choices) the ones it can use. ChatGPT prefers private_key_jwt and
	// lists none among its choices; MCP's SEP-3149 makes the plural the
	// one a document must carry and deprecates the singular.
	TokenEndpointAuthMethod           string   `json:"token_endpoint_auth_method"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
	ApplicationType                   string   `json:"application_type"`
}

// notPublic is why the document cannot be a public client, or "" when it
// can. The plural, when the document lists any method there, decides
// (RP Metadata Choices: it is what the client can use, whatever the
// singular prefers), and "none" among them is enough: the server then
// chooses none, the only method it supports, as it answers every
// registration. Without it the singular decides: "none", or no method at
// all (the implicit public client SEP-3149 deprecates, which documents
// written for the drafts before it still are).
func (d *cimdDocument) notPublic() string {
	if len(d.TokenEndpointAuthMethodsSupported) > 0 {
		if slices.Contains(d.TokenEndpointAuthMethodsSupported, "none") {
			return ""
		}
		return `Only public clients are supported: token_endpoint_auth_methods_supported must include "none"`
	}
	if m := d.TokenEndpointAuthMethod; m != "" && m != "none" {
		return `Only public clients (token_endpoint_auth_method "none") are supported`
	}
	return ""
}

func (f *cimdFetcher) fetch(ctx context.Context, id string) (*Client, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, id, nil)
	if err != nil {
		return nil, 0, cimdInvalid("The client ID metadata document URL is invalid")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := f.hc.Do(req)
	if err != nil {
		if errors.Is(err, errPrivateAddress) {
			return nil, 0, cimdInvalid("The client ID metadata document URL must resolve to a public address").withCause(err)
		}
		return nil, 0, cimdInvalid("The client ID metadata document could not be fetched").withCause(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, 0, cimdInvalid("The client ID metadata document could not be fetched (HTTP " + strconv.Itoa(resp.StatusCode) + ")")
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, cimdMaxBytes+1))
	if err != nil {
		return nil, 0, cimdInvalid("The client ID metadata document could not be read").withCause(err)
	}
	if len(body) > cimdMaxBytes {
		return nil, 0, cimdInvalid("The client ID metadata document is larger than 5 KiB")
	}
	var doc cimdDocument
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, 0, cimdInvalid("The client ID metadata document is not a JSON object of client metadata")
	}
	if doc.ClientID == nil || *doc.ClientID != id {
		return nil, 0, cimdInvalid("The client ID metadata document's client_id must equal its URL")
	}
	if msg := doc.notPublic(); msg != "" {
		return nil, 0, cimdInvalid(msg)
	}
	c, msg := newClient(id, doc.ClientName, doc.RedirectURIs, doc.ApplicationType)
	if msg != "" {
		return nil, 0, cimdInvalid("The client ID metadata document is invalid: " + msg)
	}
	c.Metadata = true
	return c, cacheTTL(resp.Header.Get("Cache-Control")), nil
}

// newClient validates client metadata shared by both registration kinds;
// msg is the problem, empty when valid.
func newClient(id, name string, redirects []string, appType string) (*Client, string) {
	if len(redirects) == 0 {
		return nil, "redirect_uris must list at least one URI"
	}
	if len(redirects) > maxRedirectURIs {
		return nil, "redirect_uris may list at most 4 URIs"
	}
	for _, r := range redirects {
		if msg := checkRedirectURI(r); msg != "" {
			return nil, msg
		}
	}
	switch appType {
	case "":
		appType = "web"
	case "web", "native":
	default:
		return nil, `application_type must be "web" or "native"`
	}
	name = strings.TrimSpace(name)
	if len([]rune(name)) > maxClientNameLen {
		name = string([]rune(name)[:maxClientNameLen])
	}
	return &Client{ID: id, Name: name, RedirectURIs: redirects, ApplicationType: appType}, ""
}

// cacheTTL reads max-age (and no-store / no-cache) from Cache-Control.
func cacheTTL(cc string) time.Duration {
	ttl := cimdDefaultTTL
	for _, d := range strings.Split(cc, ",") {
		d = strings.ToLower(strings.TrimSpace(d))
		switch {
		case d == "no-store" || d == "no-cache":
			return 0
		case strings.HasPrefix(d, "max-age="):
			n, err := strconv.Atoi(strings.TrimPrefix(d, "max-age="))
			if err != nil || n < 0 {
				continue
			}
			ttl = time.Duration(n) * time.Second
		}
	}
	if ttl <= 0 {
		return 0 // max-age=0: the document asks not to be reused
	}
	return min(max(ttl, cimdMinTTL), cimdMaxTTL)
}
