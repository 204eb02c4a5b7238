package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/acpclient"
	"github.com/actctl/actctl/agentprep"
	"github.com/actctl/actctl/control"
	"github.com/actctl/actctl/internal/termsafe"
	"github.com/actctl/actctl/schema"
	"github.com/actctl/actctl/up"
)

// chatLease is `chat` on an agent `actctl up` holds (docs/run.md,
// "chat on a running agent"): a session lease on its warm process, owned
// by the chatting user (up.ChatClient), instead of a cold copy. ok is
// false when up does not hold the agent (no up, the agent not running
// there, a template): chat then starts its own copy as before. --list
// prints the user's sessions and returns a nil session.
func chatLease(ctx context.Context, c *cli.Context, g *globals, rule acpclient.Rule, ask acpclient.AskFunc) (a *agentSession, ok bool, err error) {
	resume, list := c.Bool("resume"), c.Bool("list")
	needsUp := resume || list
	if c.String("template") != "" {
		if needsUp {
			return nil, false, usageError("chat: --resume and --list name an AGENT, not -t TEMPLATE")
		}
		return nil, false, nil
	}
	name := c.Args().First()
	g.OnlyAgent = name
	cfg, err := g.Load()
	if err != nil {
		return nil, false, err
	}
	if _, known := cfg.Agents[name]; !known {
		return nil, false, unknownAgent(cfg, name)
	}
	r, err := cfg.Resolve(name)
	if err != nil {
		return nil, false, err
	}
	if !r.Offer(schema.InteractChat) {
		return nil, false, nil // refused as before, with its reason
	}
	out := newRunObserver(g)
	client, err := dialLease(ctx, g, cfg, r, rule, ask, out)
	if err != nil {
		if needsUp {
			return nil, false, fmt.Errorf("chat --resume and --list need %s running under actctl up: %w", name, err)
		}
		if !r.HeldByUp() && !errors.Is(err, control.ErrNoUp) {
			// Held on demand (docs/dashboard.md, "Repo and tool agents").
			g.Note("chat: actctl up holds %s on demand but cannot lease it: %v; chat starts a process of its own", name, err)
		}
		return nil, false, nil
	}
	a = &agentSession{g: g, verb: agentprep.VerbChat, name: name, client: client, out: out}
	if err := a.openLeased(ctx, c, list, resume); err != nil || list {
		client.Close()
		return nil, true, err
	}
	return a, true, nil
}

// dialLease opens a lease on agent r through up and connects an ACP
// client to it: permissions answered by ask or rule (else the agent's
// preset), output to out.
func dialLease(ctx context.Context, g *globals, cfg *schema.Config, r *schema.Resolved, rule acpclient.Rule, ask acpclient.AskFunc, out *runObserver) (*acpclient.Client, error) {
	cl, err := dialUp(ctx, g)
	if err != nil {
		return nil, err
	}
	rw, err := up.OpenLease(cl, r.Name, up.ChatClient())
	if err != nil {
		return nil, err
	}
	o, err := agentprep.Backend(cfg, r, "", rule)
	if err != nil {
		rw.Close()
		return nil, err
	}
	o.Ask, o.Observer = ask, out
	o.Launch.Command = "actctl up (lease on " + r.Name + ")"
	return acpclient.Connect(ctx, rw, o)
}

// openLeased lists the user's sessions (list), or opens the chat's
// session: a new one in the client's directory, or with resume the one
// the second argument names (or the only one there is).
func (a *agentSession) openLeased(ctx context.Context, c *cli.Context, list, resume bool) error {
	want := c.Args().Get(1)
	if want != "" && !resume {
		return usageError("chat: want AGENT (a session ID goes with --resume)")
	}
	if !list && !resume {
		dir, err := agentprep.ClientProject(c.String("cwd"))
		if err != nil {
			return err
		}
		if err := a.client.Open(ctx, dir, ""); err != nil {
			return err
		}
		a.leaseNote("a new session")
		return nil
	}
	sessions, err := a.client.ListSessions(ctx)
	if err != nil {
		return err
	}
	if list {
		for _, s := range sessions {
			fmt.Fprintf(a.g.Stdout, "%s\t%s\n", termsafe.Line(string(s.SessionId)), termsafe.Line(s.Cwd))
		}
		return nil
	}
	s, err := pickSession(a.name, sessions, want)
	if err != nil {
		return err
	}
	if err := a.client.Open(ctx, s.Cwd, string(s.SessionId)); err != nil {
		return err
	}
	a.leaseNote("session resumed")
	return nil
}

// leaseNote tells the user that the chat is a lease, and how to come
// back to its session.
func (a *agentSession) leaseNote(what string) {
	id := termsafe.Line(a.client.SessionID())
	fmt.Fprintf(a.g.Stderr, "actctl: chat: %s runs under actctl up: %s %s on its running process (back to it later: actctl chat %s --resume %s)\n",
		a.name, what, id, a.name, id)
}

// pickSession is the session --resume names (want), or the only one.
func pickSession(agent string, sessions []acpclient.SessionInfo, want string) (acpclient.SessionInfo, error) {
	for _, s := range sessions {
		if want != "" && string(s.SessionId) == want {
			return s, nil
		}
	}
	switch {
	case want != "":
		return acpclient.SessionInfo{}, fmt.Errorf("chat --resume: %s has no session %s of yours to resume (it expired, ended with the process, or is another user's; actctl chat %s --list lists yours)", agent, termsafe.Line(want), agent)
	case len(sessions) == 1:
		return sessions[0], nil
	case len(sessions) == 0:
		return acpclient.SessionInfo{}, fmt.Errorf("chat --resume: %s has no session of yours to resume (actctl chat %s opens one)", agent, agent)
	}
	ids := make([]string, len(sessions))
	for i, s := range sessions {
		ids[i] = termsafe.Line(string(s.SessionId))
	}
	return acpclient.SessionInfo{}, usageError("chat --resume: %s has %d sessions of yours: name one (actctl chat %s --resume ID): %s", agent, len(sessions), agent, strings.Join(ids, ", "))
}
