import Foundation

/// Runs the built `rwsecret` on a real pseudo-terminal (python3's `pty.fork`) and
/// answers its prompts in turn, like a person at a terminal.
enum PromptDriver {
    static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") }

    /// The driver: for each (prompt, reply) it reads the terminal until `prompt` appears
    /// after the previous one (20 s at most), then types `reply` and Enter; then it reads
    /// to the end and prints everything the terminal showed. Exits with the child's status.
    private static let driver = #"""
    import json, os, pty, select, sys, time
    args = json.loads(os.environ.pop("PTY_ARGS"))
    answers = json.loads(os.environ.pop("PTY_ANSWERS"))
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(args[0], args)
    seen = b""
    consumed = 0
    def read_some(deadline):
        global seen
        left = deadline - time.time()
        if left <= 0:
            return False
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            return False
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            return False
        if not chunk:
            return False
        seen += chunk
        return True
    for prompt, reply in answers:
        deadline = time.time() + 20
        while True:
            at = seen.find(prompt.encode(), consumed)
            if at >= 0:
                consumed = at + len(prompt.encode())
                break
            if not read_some(deadline):
                sys.stdout.write(seen.decode("utf-8", "replace"))
                sys.stdout.write("\n[pty driver: no prompt %r]\n" % prompt)
                os.kill(pid, 9)
                os.waitpid(pid, 0)
                sys.exit(125)
        time.sleep(0.05)
        os.write(fd, (reply + "\n").encode())
    deadline = time.time() + 30
    while read_some(deadline):
        pass
    _, status = os.waitpid(pid, 0)
    sys.stdout.write(seen.decode("utf-8", "replace"))
    sys.exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 124)
    """#

    /// What the terminal showed and the exit status (125: a prompt never came).
    static func converse(_ arguments: [String], environment: [String: String], answers: [(prompt: String, reply: String)])
        throws -> (status: Int32, screen: String) {
        var environment = environment
        let argv = [RWSecretProcess.executable.path] + arguments
        environment["PTY_ARGS"] = String(decoding: try JSONSerialization.data(withJSONObject: argv), as: UTF8.self)
        environment["PTY_ANSWERS"] = String(decoding: try JSONSerialization.data(withJSONObject: answers.map { [$0.prompt, $0.reply] }), as: UTF8.self)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", driver]
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
