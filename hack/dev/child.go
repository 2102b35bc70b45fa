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

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/caldera-sh/caldera/internal/testing/framework"
)

// childStopGrace is how long a child has to exit after SIGTERM before it is killed.
const childStopGrace = 15 * time.Second

// child is a process dev started, writing its output to a log file.
type child struct {
	cmd     *exec.Cmd
	logPath string
	log     *os.File
	done    chan struct{}

	mu  sync.Mutex
	err error
}

// startChild starts binary with args in dir, with KUBECONFIG set to kubeconfig and its output
// in logPath, in its own process group (and killed if dev dies, on Linux).
func startChild(binary, logPath, dir, kubeconfig string, args ...string) (*child, error) {
	log, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("creating %s: %w", logPath, err)
	}
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	cmd.Stdout = log
	cmd.Stderr = log
	cmd.SysProcAttr = framework.ChildProcAttr()
	if err := cmd.Start(); err != nil {
		_ = log.Close()
		return nil, fmt.Errorf("starting %s: %w", binary, err)
	}
	c := &child{cmd: cmd, logPath: logPath, log: log, done: make(chan struct{})}
	go func() {
		err := cmd.Wait()
		c.mu.Lock()
		c.err = err
		c.mu.Unlock()
		close(c.done)
	}()
	return c, nil
}

// exitErr is how the child ended; nil while it runs or after a clean exit.
func (c *child) exitErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// stop sends SIGTERM, waits for the child to end (killing it after childStopGrace) and closes
// its log.
func (c *child) stop() error {
	defer c.log.Close()
	select {
	case <-c.done:
		return nil
	default:
	}
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("stopping pid %d: %w", c.cmd.Process.Pid, err)
	}
	select {
	case <-c.done:
		return nil
	case <-time.After(childStopGrace):
	}
	if err := c.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("killing pid %d: %w", c.cmd.Process.Pid, err)
	}
	<-c.done
	return fmt.Errorf("pid %d did not stop within %s of SIGTERM and was killed", c.cmd.Process.Pid, childStopGrace)
}

// tail returns the last n lines of the child's log.
func (c *child) tail(n int) string {
	data, err := os.ReadFile(c.logPath)
	if err != nil {
		return fmt.Sprintf("(cannot read %s: %v)", c.logPath, err)
	}
	lines := bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}
