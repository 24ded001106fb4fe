package mcpclient_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/journalfs/journal/bench/mcpclient"
)

// TestDialHTTP: the client over Streamable HTTP keeps the session id the
// initialize reply gives, sends it back, and reads replies as a JSON body or
// as server-sent events (a progress notification before the result).
func TestDialHTTP(t *testing.T) {
	var sessions []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		json.Unmarshal(b, &m)
		sessions = append(sessions, r.Header.Get("Mcp-Session-Id"))
		switch m.Method {
		case "initialize":
			w.Header().Set("Mcp-Session-Id", "s-1")
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"serverInfo":{"name":"fake","version":"1"}}}`, m.ID)
		case "notifications/initialized":
			w.WriteHeader(http.StatusAccepted)
		case "tools/call":
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n")
			fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"done\"}]}}\n\n", m.ID)
		default:
			http.Error(w, "no", http.StatusNotFound)
		}
	}))
	defer srv.Close()
	c := mcpclient.DialHTTP(srv.URL, 10*time.Second)
	init, err := c.Initialize("t")
	if err != nil || init.ServerInfo.Name != "fake" {
		t.Fatalf("initialize: %+v %v", init, err)
	}
	res, err := c.CallTool("x", map[string]any{})
	if err != nil || res.Text() != "done" {
		t.Fatalf("call: %+v %v", res, err)
	}
	if got := strings.Join(sessions, ","); got != ",s-1,s-1" {
		t.Fatalf("session ids sent: %q", got)
	}
	if _, err := c.Request("nope", nil); err == nil || !strings.Contains(err.Error(), "HTTP 404") {
		t.Fatalf("an HTTP error: %v", err)
	}
}
