package web

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
)

//go:embed assets
var assets embed.FS

// Server serves the web app of one workspace's journal.
type Server struct {
	e     *replay.Engine
	actor journal.Actor // recorded on the events the app makes (reverts)
	key   []byte        // the CSRF tokens' HMAC key
	tmpl  *template.Template
	mux   *http.ServeMux
	// Poll is how often the live stream looks for new events (default
	// 300 ms): commits by other processes show within it.
	Poll time.Duration
}

// New returns the app over e; the events it makes are recorded with actor.
func New(e *replay.Engine, actor journal.Actor) (*Server, error) {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	t, err := template.New("").Funcs(funcs).ParseFS(assets, "assets/*.html")
	if err != nil {
		return nil, fmt.Errorf("web: templates: %w", err)
	}
	s := &Server{e: e, actor: actor, key: key, tmpl: t, mux: http.NewServeMux(), Poll: 300 * time.Millisecond}
	static, _ := fs.Sub(assets, "assets")
	s.mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	s.mux.HandleFunc("GET /{$}", s.timeline)
	s.mux.HandleFunc("GET /event/{seq}", s.event)
	s.mux.HandleFunc("GET /event/{seq}/revert", s.revertPreview)
	s.mux.HandleFunc("POST /event/{seq}/revert", s.revert)
	s.mux.HandleFunc("GET /blame", s.blame)
	s.mux.HandleFunc("GET /session/{id}", s.session)
	s.mux.HandleFunc("GET /restore", s.restorePreview)
	s.mux.HandleFunc("POST /restore", s.restore)
	s.mux.HandleFunc("GET /live", s.live)
	return s, nil
}

// ServeHTTP checks where the request comes from (see doc.go) and serves it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !loopbackHost(r.Host) {
		http.Error(w, "this app answers on a loopback address only (Host "+r.Host+")", http.StatusForbidden)
		return
	}
	if o := r.Header.Get("Origin"); o != "" && o != "http://"+r.Host {
		http.Error(w, "cross-origin request refused", http.StatusForbidden)
		return
	}
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; style-src 'self'; script-src 'self'; frame-ancestors 'none'")
	w.Header().Set("Referrer-Policy", "same-origin") // no-referrer would make the browser send "Origin: null" on the app's own forms
	s.mux.ServeHTTP(w, r)
}

// LoopbackHost reports whether a host, or a host:port (a Host header, a
// listening address), names this machine's loopback: localhost or a
// loopback IP.
func LoopbackHost(host string) bool { return loopbackHost(host) }

func loopbackHost(host string) bool {
	h, _, err := net.SplitHostPort(host)
	if err != nil {
		h = host
	}
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(h, "[]"))
	return ip != nil && ip.IsLoopback()
}

// token is the CSRF token of the form that acts on event seq.
func (s *Server) token(action string, seq uint64) string {
	m := hmac.New(sha256.New, s.key)
	fmt.Fprintf(m, "%s %d", action, seq)
	return hex.EncodeToString(m.Sum(nil))
}

// Listen serves the app on addr (a loopback address; port 0 picks one) until
// ctx ends; ready is called with the app's URL once it listens.
func (s *Server) Listen(ctx context.Context, addr string, ready func(url string)) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("web: --addr %q: %w", addr, err)
	}
	if !loopbackHost(host) {
		return fmt.Errorf("web: --addr %q is not a loopback address: the app has no login, so it listens on this machine only", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("web: %w", err)
	}
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	ready("http://" + ln.Addr().String() + "/")
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// render executes template name with data and answers 200 with the page.
func (s *Server) render(w http.ResponseWriter, name string, data any) {
	s.renderCode(w, http.StatusOK, name, data)
}

// renderCode executes template name into a buffer first, so that a template
// error answers a clean 500 instead of half a page.
func (s *Server) renderCode(w http.ResponseWriter, code int, name string, data any) {
	var buf bytes.Buffer
	if err := s.tmpl.ExecuteTemplate(&buf, name, data); err != nil {
		http.Error(w, "web: rendering "+name+": "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	w.Write(buf.Bytes())
}

// fail answers a request the app cannot serve, in words.
func (s *Server) fail(w http.ResponseWriter, code int, err error, hint string) {
	s.renderCode(w, code, "error.html", map[string]any{"Title": http.StatusText(code), "Err": err.Error(), "Hint": hint})
}

// seqParam parses the {seq} path value.
func seqParam(r *http.Request) (uint64, error) {
	n, err := strconv.ParseUint(r.PathValue("seq"), 10, 64)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("%q is not an event number", r.PathValue("seq"))
	}
	return n, nil
}
