#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The file system through POSIX calls (no Foundation: fast start-up): reading files and
/// descriptors, walking directories for rule files, locking a file while it is read and
/// replaced, and atomic writes. The only place entlc opens, reads or writes a path.
enum FileSystem {
    enum Kind { case file, directory, other }

    static func kind(_ path: String) -> Kind? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .directory
        default: return .other
        }
    }

    static func lastError() -> String {
        String(cString: strerror(errno)).lowercased()
    }

    /// "cannot read `PATH`: REASON", the reason being the last call's `errno`.
    static func readError(_ path: String) -> CLIError {
        ReadError(path: path, reason: lastError()).cliError
    }

    /// `read(2)` retried while a signal interrupts it: the bytes read, 0 at the end, or -1 with
    /// `errno` set.
    static func readRetrying(_ fd: Int32, into buffer: UnsafeMutableRawPointer?, count: Int) -> Int {
        while true {
            let n = read(fd, buffer, count)
            if n < 0, errno == EINTR { continue }
            return n
        }
    }

    /// Writes all of `buffer` to `fd`, retrying after signals; false when a write fails (a
    /// closed pipe, a full disk), with `errno` set.
    @discardableResult
    static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) -> Bool {
        guard let base = buffer.baseAddress else { return true }
        var offset = 0
        while offset < buffer.count {
            let n = write(fd, base + offset, buffer.count - offset)
            if n < 0, errno == EINTR { continue }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    /// Why a file could not be read ("no such file or directory").
    struct ReadError: Error {
        var path: String
        var reason: String
        var cliError: CLIError { CLIError("cannot read `\(path)`: \(reason)") }
    }

    /// The bytes of a file, or why not.
    static func readFile(_ path: String) throws(ReadError) -> [UInt8] {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw ReadError(path: path, reason: lastError()) }
        defer { close(fd) }
        guard let bytes = readAll(fd) else { throw ReadError(path: path, reason: lastError()) }
        return bytes
    }

    /// The bytes of a file, or a message saying why not.
    static func contents(of path: String) throws(CLIError) -> [UInt8] {
        do throws(ReadError) {
            return try readFile(path)
        } catch {
            throw error.cliError
        }
    }

    /// The bytes of an input file, or of standard input for `-`.
    static func contents(ofInput path: String) throws(CLIError) -> [UInt8] {
        path == "-" ? Terminal.readStandardInput() : try contents(of: path)
    }

    /// Everything a descriptor yields until its end (nil on a read error, with `errno` set). A
    /// regular file is read straight into one buffer of its size: no growth, no copies.
    static func readAll(_ fd: Int32) -> [UInt8]? {
        var info = stat()
        let size = fstat(fd, &info) == 0 && info.st_mode & S_IFMT == S_IFREG ? Int(info.st_size) : 0
        var failed = false, filled = false
        // One byte more than the size, so the end of the file is seen without a second buffer.
        var out = [UInt8](unsafeUninitializedCapacity: max(size + 1, 1 << 16)) { buffer, count in
            count = 0
            while count < buffer.count {
                let n = readRetrying(fd, into: buffer.baseAddress! + count, count: buffer.count - count)
                if n < 0 { failed = true }
                if n <= 0 { return }
                count += n
            }
            filled = true
        }
        if failed { return nil }
        guard filled else { return out }
        // The buffer filled up (a pipe, or a growing file): read on in chunks.
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { readRetrying(fd, into: $0.baseAddress, count: $0.count) }
            if n < 0 { return nil }
            if n == 0 { return out }
            out.append(contentsOf: chunk[0..<n])
        }
    }

    /// Runs `body` with the bytes of `path` while holding an exclusive lock on the file (`flock`),
    /// so another `entlc` doing the same waits. A writer replaces the file by renaming a new one
    /// over it, so after the lock is granted the path must still be the locked file; if not, lock
    /// again.
    static func withLockedFile<T>(_ path: String, _ body: ([UInt8]) throws(CLIError) -> T) throws(CLIError) -> T {
        while true {
            let fd = open(path, O_RDONLY)
            guard fd >= 0 else { throw readError(path) }
            defer { close(fd) }
            while flock(fd, LOCK_EX) != 0 {
                guard errno == EINTR else { throw CLIError("cannot lock `\(path)`: \(lastError())") }
            }
            var locked = stat(), current = stat()
            guard fstat(fd, &locked) == 0 else { throw readError(path) }
            guard stat(path, &current) == 0 else { throw readError(path) }
            guard locked.st_ino == current.st_ino, locked.st_dev == current.st_dev else { continue }
            guard let bytes = readAll(fd) else { throw readError(path) }
            return try body(bytes)
        }
    }

    /// The file a path names, symbolic links followed (relative targets against the link's
    /// directory; at most 40 links): what a write replaces, so the link stays a link.
    static func resolvingLinks(_ path: String) -> String {
        var current = path
        for _ in 0..<40 {
            var info = stat()
            guard lstat(current, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { return current }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = readlink(current, &buffer, buffer.count - 1)
            guard n > 0 else { return current }
            let target = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if target.hasPrefix("/") {
                current = target
            } else if let slash = current.lastIndex(of: "/") {
                current = String(current[...slash]) + target
            } else {
                current = target
            }
        }
        return current
    }

    /// The file `path` names (links followed), once it is known to be one this process may
    /// replace: it exists, is a regular file, and is writable — for `root` too, whom the system
    /// lets write any file: a file without any write permission is read-only on purpose.
    static func writableTarget(_ path: String) throws(CLIError) -> String {
        let target = resolvingLinks(path)
        var info = stat()
        guard stat(target, &info) == 0 else { throw readError(path) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw CLIError("cannot write `\(path)`: not a regular file") }
        guard access(target, W_OK) == 0, info.st_mode & 0o222 != 0 else {
            throw CLIError("cannot write `\(path)`: the file is read-only (nothing was changed)")
        }
        // The new file is made beside it and renamed over it: its directory must be writable too.
        let directory = target.lastIndex(of: "/").map { String(target[..<$0]) } ?? "."
        guard access(directory.isEmpty ? "/" : directory, W_OK | X_OK) == 0 else {
            throw CLIError("cannot write `\(path)`: its directory is not writable (nothing was changed)")
        }
        return target
    }

    /// Writes `bytes` to `path` atomically, as a careful editor does: a temporary file in the same
    /// directory, written and flushed to disk, given the original's permission bits (and owner,
    /// where allowed) or `mode`, then renamed over it, and the directory flushed. A symbolic link
    /// is followed: its target is replaced and the link stays. With `replace` false, an existing
    /// file is an error and stays as it was (the new file is linked in, never renamed over).
    static func writeAtomically(_ path: String, _ bytes: [UInt8], mode: mode_t? = nil,
                                replace: Bool = true) throws(CLIError) {
        let target = resolvingLinks(path)
        var template = Array((target + ".entlc-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw CLIError("cannot write `\(path)`: \(lastError())") }
        let temp = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var ok = bytes.withUnsafeBytes { writeAll(fd, $0) }
        // Keep the original file's permissions and owner; a new file gets the usual ones (0666
        // less the umask).
        var info = stat()
        if let mode {
            fchmod(fd, mode)
        } else if stat(target, &info) == 0 {
            fchmod(fd, info.st_mode & 0o7777)
            _ = fchown(fd, info.st_uid, info.st_gid)
        } else {
            let mask = umask(0)
            umask(mask)
            fchmod(fd, 0o666 & ~mask)
        }
        if fsync(fd) != 0 { ok = false }
        close(fd)
        if ok, !replace {
            let linked = link(temp, target) == 0
            let reason = linked ? "" : errno == EEXIST ? "it already exists" : lastError()
            unlink(temp)
            guard linked else { throw CLIError("cannot write `\(path)`: \(reason)") }
            return
        }
        guard ok, rename(temp, target) == 0 else {
            let reason = lastError()
            unlink(temp)
            throw CLIError("cannot write `\(path)`: \(reason)")
        }
        // The rename itself reaches the disk with its directory.
        let directory = target.lastIndex(of: "/").map { String(target[..<$0]) } ?? "."
        let dir = open(directory.isEmpty ? "/" : directory, O_RDONLY)
        if dir >= 0 {
            _ = fsync(dir)
            close(dir)
        }
    }

    /// Removes a file this command wrote (a write that must not stay without its companion).
    static func remove(_ path: String) {
        unlink(path)
    }

    /// A command's output: to standard output for `-`, else to the file, atomically.
    static func writeOutput(_ path: String, _ bytes: [UInt8]) throws(CLIError) {
        if path == "-" {
            Terminal.emit(bytes: bytes)
        } else {
            try writeAtomically(path, bytes)
        }
    }

    /// Every `*.entl` file below `directory` (only those directly in it unless `recursive`; at
    /// most `limit`), in sorted path order. Hidden entries (`.git`, `.build`) are skipped;
    /// symbolic links to directories are not followed (no cycles).
    static func ruleFiles(in directory: String, recursive: Bool = true,
                          limit: Int = .max) throws(CLIError) -> [String] {
        var found: [String] = []
        var pending = [directory]
        while let dir = pending.popLast(), found.count < limit {
            guard let handle = opendir(dir) else { throw CLIError("cannot read directory `\(dir)`: \(lastError())") }
            defer { closedir(handle) }
            while let entry = readdir(handle) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
                }
                if name.hasPrefix(".") { continue }
                let path = dir.hasSuffix("/") ? dir + name : dir + "/" + name
                var info = stat()
                guard lstat(path, &info) == 0 else { continue }
                let mode = info.st_mode & S_IFMT
                if mode == S_IFDIR {
                    if recursive { pending.append(path) }
                } else if name.hasSuffix(".entl"), mode == S_IFREG || (mode == S_IFLNK && kind(path) == .file) {
                    found.append(path)
                }
            }
        }
        return found.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }
}
