package mcp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/journalfs/journal/journal"
)

// Resource subscriptions. A client may subscribe (resources/subscribe, or on
// protocol 2026-07-28 the resourceSubscriptions of a subscriptions/listen
// stream) to journal://events and to a file's history,
// journal://files/{path}/events;
// after each commit that adds events — this server's, another server's on
// the same journal, the CLI's — it gets notifications/resources/updated for
// each subscribed URI the new events concern. While any subscription is
// open a watcher looks at the journal file and its write-ahead log every
// watchEvery (a stat each; the journal is read only when one changed), so
// an update arrives within that of the commit, whoever made it.

// watchEvery is how often the watcher looks for new commits.
const watchEvery = 200 * time.Millisecond

// filesPrefix and eventsSuffix frame a file history resource's URI.
const (
	eventsURI    = "journal://events"
	filesPrefix  = "journal://files/"
	eventsSuffix = "/events"
)

// subscriptions are the open resource subscriptions, by session: each URI
// with the subscriptions/listen request that opened it (protocol
// 2026-07-28, whose notifications carry its id), nil for resources/subscribe.
type subscriptions struct {
	mu       sync.Mutex
	bySess   map[server.ClientSession]map[string]any
	watching bool
}

// subscriptionHooks returns the mcp-go hooks that keep s.subs.
func (s *Server) subscriptionHooks() *server.Hooks {
	h := &server.Hooks{}
	h.AddAfterSubscribe(func(ctx context.Context, _ any, req *mcpgo.SubscribeRequest, _ *mcpgo.EmptyResult) {
		if sess := server.ClientSessionFromContext(ctx); sess != nil {
			s.subscribe(sess, req.Params.URI, nil)
		}
	})
	// protocol 2026-07-28: the resources a subscriptions/listen stream names,
	// for as long as it is open
	h.AddBeforeSubscriptionsListen(func(ctx context.Context, id any, req *mcpgo.SubscriptionsListenRequest) {
		if sess := server.ClientSessionFromContext(ctx); sess != nil && id != nil {
			for _, uri := range req.Params.Notifications.ResourceSubscriptions {
				s.subscribe(sess, uri, id)
			}
		}
	})
	ended := func(ctx context.Context, id any) {
		sess := server.ClientSessionFromContext(ctx)
		if sess == nil {
			return
		}
		s.subs.mu.Lock()
		defer s.subs.mu.Unlock()
		for uri, lid := range s.subs.bySess[sess] {
			if lid != nil && fmt.Sprint(lid) == fmt.Sprint(id) {
				delete(s.subs.bySess[sess], uri)
			}
		}
	}
	h.AddAfterSubscriptionsListen(func(ctx context.Context, id any, _ *mcpgo.SubscriptionsListenRequest, _ *mcpgo.SubscriptionsListenResult) {
		ended(ctx, id)
	})
	h.AddOnError(func(ctx context.Context, id any, method mcpgo.MCPMethod, _ any, _ error) {
		if method == mcpgo.MethodSubscriptionsListen {
			ended(ctx, id)
		}
	})
	h.AddAfterUnsubscribe(func(ctx context.Context, _ any, req *mcpgo.UnsubscribeRequest, _ *mcpgo.EmptyResult) {
		if sess := server.ClientSessionFromContext(ctx); sess != nil {
			s.subs.mu.Lock()
			delete(s.subs.bySess[sess], req.Params.URI)
			s.subs.mu.Unlock()
		}
	})
	h.AddOnUnregisterSession(func(_ context.Context, sess server.ClientSession) {
		s.subs.mu.Lock()
		delete(s.subs.bySess, sess)
		s.subs.mu.Unlock()
	})
	return h
}

// subscribe records a subscription (listen: the subscriptions/listen
// request's id, nil for resources/subscribe) and starts the watcher if none
// runs.
func (s *Server) subscribe(sess server.ClientSession, uri string, listen any) {
	s.subs.mu.Lock()
	defer s.subs.mu.Unlock()
	if s.subs.bySess == nil {
		s.subs.bySess = map[server.ClientSession]map[string]any{}
	}
	if s.subs.bySess[sess] == nil {
		s.subs.bySess[sess] = map[string]any{}
	}
	s.subs.bySess[sess][uri] = listen
	if !s.subs.watching {
		s.subs.watching = true
		go s.watch(s.lastEvent())
	}
}

// lastEvent is the journal's newest event number, every batch this server
// acknowledged included (0 when it cannot be read).
func (s *Server) lastEvent() uint64 {
	var last uint64
	_ = s.eng.Journal().View(func(tx *journal.Tx) error {
		last = tx.Last()
		return nil
	})
	return last
}

// watch notifies subscribers of events after seen until no subscription is
// left.
func (s *Server) watch(seen uint64) {
	jp := s.eng.Journal().Path()
	last := ""
	for {
		time.Sleep(watchEvery)
		s.subs.mu.Lock()
		if len(s.subs.bySess) == 0 || !s.anySubscribed() {
			s.subs.watching = false
			s.subs.mu.Unlock()
			return
		}
		s.subs.mu.Unlock()
		now := statLine(jp)
		if now == last {
			continue
		}
		last = now
		var events []*journal.Event
		err := s.eng.Journal().View(func(tx *journal.Tx) error {
			if tx.Last() <= seen {
				return nil
			}
			return tx.Each(seen+1, false, func(e *journal.Event) error {
				events = append(events, e)
				return nil
			})
		})
		if errors.Is(err, journal.ErrNotFound) {
			s.subs.mu.Lock()
			s.subs.watching = false
			s.subs.mu.Unlock()
			return
		}
		if err != nil || len(events) == 0 {
			continue
		}
		seen = events[len(events)-1].Seq
		s.notifyUpdated(events)
	}
}

// anySubscribed reports whether a session holds a subscription; s.subs.mu
// is held.
func (s *Server) anySubscribed() bool {
	for _, uris := range s.subs.bySess {
		if len(uris) > 0 {
			return true
		}
	}
	return false
}

// statLine describes the journal file and its log as they are now.
func statLine(jp string) string {
	var b strings.Builder
	for _, p := range []string{jp, jp + ".wal"} {
		if fi, err := os.Stat(p); err == nil {
			b.WriteString(fi.ModTime().Format(time.RFC3339Nano))
			b.WriteByte(' ')
			b.WriteString(strconv.FormatInt(fi.Size(), 10))
			b.WriteByte(';')
		}
	}
	return b.String()
}

// notifyUpdated sends notifications/resources/updated to each session for
// each subscribed URI the events concern.
func (s *Server) notifyUpdated(events []*journal.Event) {
	touched := map[string]bool{eventsURI: true}
	for _, e := range events {
		for _, f := range e.Files {
			touched[filesPrefix+f.Path+eventsSuffix] = true
		}
	}
	s.subs.mu.Lock()
	defer s.subs.mu.Unlock()
	for sess, uris := range s.subs.bySess {
		for uri, listen := range uris {
			if !touched[uri] || !sess.Initialized() {
				continue
			}
			n := mcpgo.JSONRPCNotification{JSONRPC: mcpgo.JSONRPC_VERSION, Notification: mcpgo.Notification{
				Method: mcpgo.MethodNotificationResourceUpdated,
				Params: mcpgo.NotificationParams{AdditionalFields: map[string]any{"uri": uri}}}}
			if listen != nil {
				n.Params.Meta = map[string]any{mcpgo.MetaKeySubscriptionID: listen}
			}
			select {
			case sess.NotificationChannel() <- n:
			default: // a client that does not read loses an update, not the server
			}
		}
	}
}
