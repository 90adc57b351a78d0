#!/usr/bin/env python3
"""Runs a command and reports its own peak resident memory: the `VmHWM` of /proc/PID/status,
read when the process is about to exit (stopped there with ptrace's PTRACE_O_TRACEEXIT), so it is
the exec'd program's high-water mark alone. (`wait4`'s maximum, what /usr/bin/time prints, can
include the memory of the process that forked it.) Standard input and output pass through.

    peak_rss.py OUT_FILE COMMAND ARGS...    writes "KIB SECONDS" to OUT_FILE; exits as the command did
"""
import ctypes
import os
import sys
import time

PTRACE_TRACEME, PTRACE_CONT, PTRACE_SETOPTIONS = 0, 7, 0x4200
PTRACE_O_TRACEEXIT, PTRACE_EVENT_EXIT = 0x40, 6
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
libc.ptrace.restype = ctypes.c_long


def vm_hwm(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    raise RuntimeError("no VmHWM")


def main():
    out, command = sys.argv[1], sys.argv[2:]
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        libc.ptrace(PTRACE_TRACEME, 0, None, None)
        os.execvp(command[0], command)  # stops with SIGTRAP after the exec
    os.waitpid(pid, 0)
    libc.ptrace(PTRACE_SETOPTIONS, pid, None, ctypes.c_void_p(PTRACE_O_TRACEEXIT))
    libc.ptrace(PTRACE_CONT, pid, None, None)
    peak, status = None, 0
    while True:
        _, status = os.waitpid(pid, 0)
        if os.WIFEXITED(status) or os.WIFSIGNALED(status):
            break
        signal = 0
        if os.WIFSTOPPED(status):
            if status >> 16 == PTRACE_EVENT_EXIT:
                peak = vm_hwm(pid)
            elif os.WSTOPSIG(status) != 5:  # pass real signals on (SIGPIPE, …); swallow our traps
                signal = os.WSTOPSIG(status)
        libc.ptrace(PTRACE_CONT, pid, None, ctypes.c_void_p(signal))
    seconds = time.perf_counter() - start
    with open(out, "w") as f:
        f.write(f"{peak} {seconds:.3f}\n")
    sys.exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))


if __name__ == "__main__":
    main()
