package web

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/replay"
)

//go:embed assets
var assets embed.FS

// Server serves the web app of one workspace's journal (New), or the team
// page of a remote (NewTeam).
type Server struct {
	e     *replay.Engine
	team  TeamSource
	actor journal.Actor // recorded on the events the app makes (reverts)
	key   []byte        // the CSRF tokens' HMAC key
	tmpl  *template.Template
	mux   *http.ServeMux
	// Poll is how often the live stream looks for new events (default
	// 300 ms): commits by other processes show within it.
	Poll time.Duration
	// Token, when set, is required of every request (?token= once, which
	// sets a cookie, or Authorization: Bearer), and lets the app answer on
	// any address and Host; without it the app is loopback only.
	Token string
	// Reveal shows detected secrets in clear; by default every page masks
	// them (secrets.go).
	Reveal bool
}

// New returns the app over e; the events it makes are recorded with actor.
func New(e *replay.Engine, actor journal.Actor) (*Server, error) {
	s, err := newServer()
	if err != nil {
		return nil, err
	}
	s.e, s.actor = e, actor
	s.mux.HandleFunc("GET /{$}", s.timeline)
	s.mux.HandleFunc("GET /event/{seq}", s.event)
	s.mux.HandleFunc("GET /event/{seq}/diff", s.eventDiff)
	s.mux.HandleFunc("GET /event/{seq}/revert", s.revertPreview)
	s.mux.HandleFunc("POST /event/{seq}/revert", s.revert)
	s.mux.HandleFunc("GET /event/{seq}/rewind", s.rewindPreview)
	s.mux.HandleFunc("POST /event/{seq}/rewind", s.rewind)
	s.mux.HandleFunc("GET /blame", s.blame)
	s.mux.HandleFunc("GET /session/{id}", s.session)
	s.mux.HandleFunc("GET /session/{id}/undo", s.sessionUndoPreview)
	s.mux.HandleFunc("POST /session/{id}/undo", s.sessionUndo)
	s.mux.HandleFunc("GET /prompt/{ref}/undo", s.promptUndoPreview)
	s.mux.HandleFunc("POST /prompt/{ref}/undo", s.promptUndo)
	s.mux.HandleFunc("GET /prompt/{ref}/rewind", s.promptRewind)
	s.mux.HandleFunc("GET /restore", s.restorePreview)
	s.mux.HandleFunc("POST /restore", s.restore)
	s.mux.HandleFunc("GET /live", s.live)
	return s, nil
}

// newServer returns a server with its templates and static assets and no
// page: New adds a workspace's, NewTeam a remote's.
func newServer() (*Server, error) {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	t, err := template.New("").Funcs(funcs).ParseFS(assets, "assets/*.html")
	if err != nil {
		return nil, fmt.Errorf("web: templates: %w", err)
	}
	s := &Server{key: key, tmpl: t, mux: http.NewServeMux(), Poll: 300 * time.Millisecond}
	static, _ := fs.Sub(assets, "assets")
	s.mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	s.mux.HandleFunc("GET /view", s.view)
	return s, nil
}

// ServeHTTP checks where the request comes from (see doc.go) and serves it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.Token == "" && !loopbackHost(r.Host) {
		http.Error(w, "this app answers on a loopback address only (Host "+r.Host+"); start it with --token to serve others", http.StatusForbidden)
		return
	}
	if o := r.Header.Get("Origin"); o != "" && o != "http://"+r.Host && o != "https://"+r.Host {
		http.Error(w, "cross-origin request refused", http.StatusForbidden)
		return
	}
	if s.Token != "" && !s.authorized(w, r) {
		return
	}
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; style-src 'self'; script-src 'self'; frame-ancestors 'none'")
	w.Header().Set("Referrer-Policy", "same-origin") // no-referrer would make the browser send "Origin: null" on the app's own forms
	s.mux.ServeHTTP(w, r)
}

// authCookie is the cookie a request that carried the token gets.
const authCookie = "journal_auth"

// authorized checks a request's token: ?token= (answered with a cookie and
// a redirect to the same page without it, so the token stays out of the
// history and of Referer), the cookie, or Authorization: Bearer. It
// answers 401 itself when there is none.
func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	cookie := s.token("auth "+s.Token, 0)
	if t := r.URL.Query().Get("token"); t != "" && r.Method == http.MethodGet {
		if subtle.ConstantTimeCompare([]byte(t), []byte(s.Token)) == 1 {
			http.SetCookie(w, &http.Cookie{Name: authCookie, Value: cookie, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
			u := *r.URL
			q := u.Query()
			q.Del("token")
			u.RawQuery = q.Encode()
			http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
			return false
		}
	}
	if c, err := r.Cookie(authCookie); err == nil && hmacEqual(c.Value, cookie) {
		return true
	}
	if b, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && subtle.ConstantTimeCompare([]byte(b), []byte(s.Token)) == 1 {
		return true
	}
	w.Header().Set("WWW-Authenticate", "Bearer")
	http.Error(w, "unauthorized: open the URL `journal web` printed (it carries ?token=), or send Authorization: Bearer <token>", http.StatusUnauthorized)
	return false
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
	if !loopbackHost(host) && s.Token == "" {
		return fmt.Errorf("web: --addr %q is not a loopback address: give --token (or JOURNAL_WEB_TOKEN) to serve it beyond this machine", addr)
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
	u := "http://" + ln.Addr().String() + "/"
	if s.Token != "" {
		u += "?token=" + url.QueryEscape(s.Token)
	}
	ready(u)
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// render executes template name with data and answers 200 with the page.
func (s *Server) render(w http.ResponseWriter, r *http.Request, name string, data map[string]any) {
	s.renderCode(w, r, http.StatusOK, name, data)
}

// renderCode executes template name into a buffer first, so that a template
// error answers a clean 500 instead of half a page. Every page gets its own
// address (Back, for the diff view switch) and the diff view (Split).
func (s *Server) renderCode(w http.ResponseWriter, r *http.Request, code int, name string, data map[string]any) {
	data["Back"] = r.URL.RequestURI()
	data["TeamApp"] = s.team != nil
	data["Split"] = split(r)
	switch files := data["Files"].(type) {
	case []fileDiff:
		for i := range files {
			files[i].Split = split(r)
		}
	case []sessionFile:
		for i := range files {
			files[i].Diff.Split = split(r)
		}
	}
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
func (s *Server) fail(w http.ResponseWriter, r *http.Request, code int, err error, hint string) {
	s.renderCode(w, r, code, "error.html", map[string]any{"Title": http.StatusText(code), "Err": err.Error(), "Hint": hint})
}

// seqParam parses the {seq} path value.
func seqParam(r *http.Request) (uint64, error) {
	n, err := strconv.ParseUint(r.PathValue("seq"), 10, 64)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("%q is not an event number", r.PathValue("seq"))
	}
	return n, nil
}

// split reports whether diffs show side by side: the view cookie /view sets.
func split(r *http.Request) bool {
	c, err := r.Cookie("view")
	return err == nil && c.Value == "split"
}

// view sets the diff view (?mode=split or unified) and goes back to the
// page (?back, a path of this app).
func (s *Server) view(w http.ResponseWriter, r *http.Request) {
	mode := r.URL.Query().Get("mode")
	if mode != "split" && mode != "unified" {
		s.fail(w, r, http.StatusBadRequest, fmt.Errorf("unknown diff view %q", mode), "the views are split and unified")
		return
	}
	http.SetCookie(w, &http.Cookie{Name: "view", Value: mode, Path: "/", MaxAge: 365 * 24 * 3600, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	back := r.URL.Query().Get("back")
	if !strings.HasPrefix(back, "/") || strings.HasPrefix(back, "//") || strings.ContainsAny(back, "\\\r\n") {
		back = "/"
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
}
