/*
Copyright 2026 The Caldera Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package framework

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// ProcessStopGrace is how long a child process (KWOK, kube-controller-manager, a manager binary)
// has to exit after SIGTERM before it is killed.
const ProcessStopGrace = 15 * time.Second

// Process is a child process started by StartProcess (kwok, kube-controller-manager, a manager
// binary), logging to a file of its own.
type Process struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	log     *os.File
	done    chan struct{}

	mu      sync.Mutex
	exitErr error
	stopped bool
}

// StartProcess starts cmd with its output in a new file at logPath (and on stderr too when
// attachOutput), in its own process group (killed with its parent, on Linux) so that a Ctrl-C
// reaches the parent first and the parent stops it. name is how errors call it.
func StartProcess(name string, cmd *exec.Cmd, logPath string, attachOutput bool) (*Process, error) {
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("creating the %s log: %w", name, err)
	}
	var out io.Writer = logFile
	if attachOutput {
		out = io.MultiWriter(logFile, os.Stderr)
	}
	cmd.Stdout = out
	cmd.Stderr = out
	cmd.SysProcAttr = ChildProcAttr()
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &Process{name: name, cmd: cmd, logPath: logPath, log: logFile, done: make(chan struct{})}
	go func() {
		err := cmd.Wait()
		p.mu.Lock()
		p.exitErr = err
		p.mu.Unlock()
		close(p.done)
	}()
	return p, nil
}

// Exited reports an error when the process ended although nobody stopped it, with the end of its
// log; nil while it runs.
func (p *Process) Exited() error {
	if p == nil {
		return nil
	}
	select {
	case <-p.done:
	default:
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return nil
	}
	return fmt.Errorf("%s exited (%v); the end of %s:\n%s", p.name, p.exitErr, p.logPath, p.Tail(20))
}

// Done is closed when the process has ended.
func (p *Process) Done() <-chan struct{} { return p.done }

// ExitErr is how the process ended: nil while it runs or after a clean exit.
func (p *Process) ExitErr() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exitErr
}

// Pid is the process ID.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// LogPath is the file the process writes its output to.
func (p *Process) LogPath() string { return p.logPath }

// Tail returns the last n lines of the process's log.
func (p *Process) Tail(n int) string { return tail(p.logPath, n) }

// Stop sends SIGTERM, waits for the process to end (killing it after ProcessStopGrace, which is
// an error) and closes its log. It is safe to call more than once.
func (p *Process) Stop() error {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	if p.stopped {
		p.mu.Unlock()
		<-p.done
		return nil
	}
	p.stopped = true
	p.mu.Unlock()
	defer p.log.Close()

	select {
	case <-p.done:
		return nil
	default:
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("stopping %s: %w", p.name, err)
	}
	select {
	case <-p.done:
		return nil
	case <-time.After(ProcessStopGrace):
	}
	if err := p.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("killing %s: %w", p.name, err)
	}
	<-p.done
	return fmt.Errorf("%s (pid %d) did not stop within %s of SIGTERM and was killed", p.name, p.cmd.Process.Pid, ProcessStopGrace)
}
