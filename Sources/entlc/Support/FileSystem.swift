#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

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

    /// The most bytes read from one file or standard input (a state of a million usage records is
    /// about 70 MB): a bounded memory, and an end for a file that never ends (`/dev/zero`).
    static let maxInputBytes = 1 << 30

    /// Why `readAll` returned nothing: a read error, or an input past its limit.
    struct ReadFailure: Error {
        var reason: String

        /// The last call's `errno`.
        static var lastCall: ReadFailure { ReadFailure(reason: lastError()) }

        static func tooLarge(_ limit: Int) -> ReadFailure {
            let size = limit >= 1 << 30 ? "\(limit >> 30) GiB"
                : limit >= 1 << 20 ? "\(limit >> 20) MiB" : "\(limit >> 10) KiB"
            return ReadFailure(reason: "larger than \(size), the most entlc reads from such a file")
        }
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

    /// The bytes of a file (at most `limit`), or why not.
    static func readFile(_ path: String, limit: Int = maxInputBytes) throws(ReadError) -> [UInt8] {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw ReadError(path: path, reason: lastError()) }
        defer { close(fd) }
        noteInput(fd, path)
        do throws(ReadFailure) {
            return try readAll(fd, limit: limit)
        } catch {
            throw ReadError(path: path, reason: error.reason)
        }
    }

    /// The bytes of a file (at most `limit`), or a message saying why not.
    static func contents(of path: String, limit: Int = maxInputBytes) throws(CLIError) -> [UInt8] {
        do throws(ReadError) {
            return try readFile(path, limit: limit)
        } catch {
            throw error.cliError
        }
    }

    /// The bytes of an input file, or of standard input for `-` (at most `limit`).
    static func contents(ofInput path: String, limit: Int = maxInputBytes) throws(CLIError) -> [UInt8] {
        guard path == "-" else { return try contents(of: path, limit: limit) }
        do throws(ReadFailure) {
            return try readAll(STDIN_FILENO, limit: limit)
        } catch {
            throw CLIError("cannot read standard input: \(error.reason)")
        }
    }

    /// Everything a descriptor yields until its end, or why not: a read error, or more than `limit`
    /// bytes. A regular file is read straight into one buffer of its size: no growth, no copies.
    static func readAll(_ fd: Int32, limit: Int = maxInputBytes) throws(ReadFailure) -> [UInt8] {
        var info = stat()
        let size = fstat(fd, &info) == 0 && info.st_mode & S_IFMT == S_IFREG ? Int(info.st_size) : 0
        if size > limit { throw .tooLarge(limit) }
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
        if failed { throw .lastCall }
        guard filled else { return out }
        // The buffer filled up (a pipe, or a growing file): read on in chunks.
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { readRetrying(fd, into: $0.baseAddress, count: $0.count) }
            if n < 0 { throw .lastCall }
            if n == 0, out.count > limit { throw .tooLarge(limit) }
            if n == 0 { return out }
            if out.count + n > limit { throw .tooLarge(limit) }
            out.append(contentsOf: chunk[0..<n])
        }
    }

    /// The regular files this process has read (by device and inode, with the path it read each
    /// by): a command's output never replaces one of its own inputs (`build -o rules.entl`, `build
    /// --sign key --signature key`), unless it rewrites that file on purpose (`rewriting`). One
    /// command runs per process.
    private static let inputs = Mutex<[FileID: String]>([:])

    private struct FileID: Hashable {
        var device: UInt64, inode: UInt64
        init(_ info: stat) { (device, inode) = (UInt64(info.st_dev), UInt64(info.st_ino)) }
    }

    private static func noteInput(_ fd: Int32, _ path: String) {
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return }
        inputs.withLock { $0[FileID(info)] = $0[FileID(info)] ?? path }
    }

    /// The path by which this process read the file `info` describes, if it did.
    private static func input(_ info: stat) -> String? { inputs.withLock { $0[FileID(info)] } }

    /// Refuses an output path that names a file this process read (`info`: its `stat`, when known).
    static func refuseReplacingInput(_ path: String, _ known: stat? = nil) throws(CLIError) {
        var info = stat()
        if let known { info = known } else if path == "-" || stat(path, &info) != 0 { return }
        guard let input = input(info) else { return }
        let which = input == path ? "it is" : "it is `\(input)`,"
        throw CLIError("cannot write `\(path)`: \(which) an input of this command (nothing was written; "
                       + "give the output a path of its own)")
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
            noteInput(fd, path)
            let bytes: [UInt8]
            do throws(ReadFailure) {
                bytes = try readAll(fd)
            } catch {
                throw ReadError(path: path, reason: error.reason).cliError
            }
            return try body(bytes)
        }
    }

    /// The file a path names, symbolic links followed (relative targets against the link's
    /// directory; at most 40 links): what a write replaces, so the link stays a link.
    static func resolvingLinks(_ path: String) -> String { linkChain(path).last! }

    /// `path` and each link target it leads to, in order (the last names no link).
    static func linkChain(_ path: String) -> [String] {
        var chain = [path]
        for _ in 0..<40 {
            let current = chain.last!
            var info = stat()
            guard lstat(current, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { break }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = readlink(current, &buffer, buffer.count - 1)
            guard n > 0 else { break }
            let target = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if target.hasPrefix("/") {
                chain.append(target)
            } else if let slash = current.lastIndex(of: "/") {
                chain.append(String(current[...slash]) + target)
            } else {
                chain.append(target)
            }
        }
        return chain
    }

    /// `path` with its directory made canonical (`realpath`; the file itself need not exist), so
    /// two spellings of one file (`out.bin`, `./out.bin`) compare equal.
    static func canonical(_ path: String) -> String {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        guard let resolved = realpath(directory.isEmpty ? "/" : directory, nil) else { return path }
        defer { free(resolved) }
        let base = String(cString: resolved)
        return (base == "/" ? "" : base) + "/" + name
    }

    /// The file `path` names (links followed), once it is known to be one this process may
    /// replace: it exists, is a regular file, and it and its directory are writable — for `root`
    /// too, whom the system lets write anywhere: a file or a directory without any write permission
    /// is read-only on purpose.
    static func writableTarget(_ path: String) throws(CLIError) -> String {
        let target = resolvingLinks(path)
        var info = stat()
        // A link to what has no path (`/dev/stdin` on a pipe: `pipe:[…]`) is read through the link.
        guard stat(target, &info) == 0 || stat(path, &info) == 0 else { throw readError(path) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw CLIError("cannot write `\(path)`: not a regular file") }
        guard access(target, W_OK) == 0, info.st_mode & 0o222 != 0 else {
            throw CLIError("cannot write `\(path)`: the file is read-only (nothing was changed)")
        }
        // The new file is made beside it and renamed over it: its directory must be writable too.
        let found = target.lastIndex(of: "/").map { String(target[..<$0]) } ?? "."
        let directory = found.isEmpty ? "/" : found
        guard access(directory, W_OK | X_OK) == 0, stat(directory, &info) == 0, info.st_mode & 0o222 != 0 else {
            throw CLIError("cannot write `\(path)`: its directory is not writable (nothing was changed)")
        }
        return target
    }

    /// Writes `bytes` to `path` atomically, as a careful editor does: a temporary file in the same
    /// directory, written and flushed to disk, given the original's owner (where allowed) and then
    /// its permission bits — set after the owner, which clears set-user-ID — or `mode`, then renamed
    /// over it, and the directory flushed. A symbolic link is followed: its target is replaced and
    /// the link stays. A path that names no regular file (`/dev/stdout`, a FIFO, a device) is
    /// written through, as a shell's `>` would; a directory is an error. With `replace` false, an
    /// existing file is an error and stays as it was (the new file is linked in, never renamed over).
    /// An input of the command is replaced only when it is `rewriting` it (`fmt`, `eval --consume`).
    static func writeAtomically(_ path: String, _ bytes: [UInt8], mode: mode_t? = nil,
                                replace: Bool = true, rewriting: Bool = false) throws(CLIError) {
        try PreparedWrite(path, bytes, mode: mode, replace: replace, rewriting: rewriting).commit()
    }

    /// A file to write: its path, its bytes, and its permission bits (nil: as `writeAtomically`).
    typealias NewFile = (path: String, bytes: [UInt8], mode: mode_t?)

    /// Writes several files that belong together (an artifact and its signature, a key pair): every
    /// one is prepared first (written in full beside its target, flushed), and only when all are
    /// ready are they put in place, in order; if one cannot be prepared, none is touched. Two paths
    /// naming the same file are refused, and so is a path naming one of the command's inputs.
    static func writeAtomically(_ files: [NewFile], replace: Bool = true) throws(CLIError) {
        var prepared: [PreparedWrite] = []
        defer { for p in prepared { p.discard() } }
        for (path, bytes, mode) in files {
            let write = try PreparedWrite(path, bytes, mode: mode, replace: replace, rewriting: false)
            if let same = prepared.first(where: { $0.sameTarget(as: write) }) {
                write.discard()
                throw CLIError("`\(same.path)` and `\(path)` are the same file: give each its own path")
            }
            prepared.append(write)
        }
        // Written-through targets first: they cannot be prepared, so one that fails leaves every
        // other file as it was.
        prepared = prepared.filter { $0.temp == nil } + prepared.filter { $0.temp != nil }
        var placed: [String] = []
        while !prepared.isEmpty {
            let write = prepared.removeFirst()
            do throws(CLIError) {
                try write.commit()
            } catch {
                // New files (not `replace`) that are not to stay without their companion.
                if !replace { for p in placed { unlink(p) } }
                throw error
            }
            placed.append(write.target)
        }
    }

    /// A file written in full beside its target (a temporary file), to be put in place (`commit`)
    /// or thrown away (`discard`). A target that is not a regular file is written at `commit`.
    struct PreparedWrite {
        let path: String
        /// `path` with symbolic links followed.
        let target: String
        /// The temporary file; nil when the target is written through (not a regular file).
        let temp: String?
        /// A descriptor of this process the path names (`/dev/stdout`: 1, `/dev/fd/3`: 3).
        let descriptor: Int32?
        let bytes: [UInt8]
        let replace: Bool

        init(_ path: String, _ bytes: [UInt8], mode: mode_t?, replace: Bool, rewriting: Bool) throws(CLIError) {
            (self.path, self.bytes, self.replace) = (path, bytes, replace)
            let chain = linkChain(path)
            target = chain.last!
            descriptor = chain.lazy.compactMap(PreparedWrite.descriptor(named:)).first
            var info = stat()
            let exists = stat(path, &info) == 0
            if exists, info.st_mode & S_IFMT == S_IFDIR { throw CLIError("cannot write `\(path)`: it is a directory") }
            if exists, !rewriting { try FileSystem.refuseReplacingInput(path, info) }
            // `/dev/stdout` and its kin (or a link to one) name a descriptor: written through, not replaced.
            if exists, info.st_mode & S_IFMT != S_IFREG || descriptor != nil {
                guard replace else { throw CLIError("cannot write `\(path)`: it already exists") }
                temp = nil
                return
            }
            // A file without any write permission is read-only on purpose, for `root` too (who may
            // rename over it): as `writableTarget` says for a file edited in place.
            if exists, replace, info.st_mode & 0o222 == 0 {
                throw CLIError("cannot write `\(path)`: the file is read-only (nothing was changed)")
            }
            var template = Array((target + ".entlc-XXXXXX").utf8CString)
            let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            guard fd >= 0 else { throw CLIError("cannot write `\(path)`: \(lastError())") }
            let temp = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
            // The first failure's reason, before a later call sets `errno` again.
            var failure = bytes.withUnsafeBytes { writeAll(fd, $0) } ? nil : lastError()
            // The original file's owner, then its permissions (a change of owner clears set-user-ID);
            // a new file gets the usual ones (0666 less the umask).
            if let mode {
                fchmod(fd, mode)
            } else if exists {
                _ = fchown(fd, info.st_uid, info.st_gid)
                fchmod(fd, info.st_mode & 0o7777)
            } else {
                let mask = umask(0)
                umask(mask)
                fchmod(fd, 0o666 & ~mask)
            }
            if failure == nil, fsync(fd) != 0 { failure = lastError() }
            close(fd)
            if let failure {
                unlink(temp)
                throw CLIError("cannot write `\(path)`: \(failure)")
            }
            self.temp = temp
        }

        /// The descriptor of this process a path names: `/dev/stdout`, `/dev/stderr`, `/dev/fd/N`,
        /// `/proc/self/fd/N`.
        static func descriptor(named path: String) -> Int32? {
            switch path {
            case "/dev/stdout": return 1
            case "/dev/stderr": return 2
            default:
                for prefix in ["/dev/fd/", "/proc/self/fd/"] where path.hasPrefix(prefix) {
                    return Int32(path.dropFirst(prefix.count))
                }
                return nil
            }
        }

        /// Whether `other` would write the same file.
        func sameTarget(as other: PreparedWrite) -> Bool {
            var a = stat(), b = stat()
            if stat(target, &a) == 0, stat(other.target, &b) == 0 {
                return a.st_dev == b.st_dev && a.st_ino == b.st_ino
            }
            return canonical(target) == canonical(other.target)
        }

        /// Puts the file in place: renamed over its target (linked in when not `replace`), the
        /// directory flushed; or written through.
        func commit() throws(CLIError) {
            guard let temp else {
                // This process's own descriptor as it is (a `>>` keeps appending), else the target
                // opened for writing (a FIFO, a device).
                let fd = descriptor ?? open(path, O_WRONLY)
                guard fd >= 0 else { throw CLIError("cannot write `\(path)`: \(lastError())") }
                defer { if descriptor == nil { close(fd) } }
                guard bytes.withUnsafeBytes({ writeAll(fd, $0) }) else {
                    throw CLIError("cannot write `\(path)`: \(lastError())")
                }
                return
            }
            if !replace {
                let linked = link(temp, target) == 0
                let reason = linked ? "" : errno == EEXIST ? "it already exists" : lastError()
                unlink(temp)
                guard linked else { throw CLIError("cannot write `\(path)`: \(reason)") }
            } else {
                guard rename(temp, target) == 0 else {
                    let reason = lastError()
                    unlink(temp)
                    throw CLIError("cannot write `\(path)`: \(reason)")
                }
            }
            // The new name reaches the disk with its directory.
            let directory = target.lastIndex(of: "/").map { String(target[..<$0]) } ?? "."
            let dir = open(directory.isEmpty ? "/" : directory, O_RDONLY)
            if dir >= 0 {
                _ = fsync(dir)
                close(dir)
            }
        }

        /// Throws the prepared file away (nothing when it was put in place or written through).
        func discard() {
            if let temp { unlink(temp) }
        }
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
                let bytes = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    Array(raw.prefix { $0 != 0 })
                }
                if bytes.first == UInt8(ascii: ".") { continue }
                guard let name = String(validating: bytes, as: UTF8.self) else {
                    // Not skipped in silence: it may be a rule file (or hold some) the rules then lack.
                    try refuseUnreadableName(bytes, in: dir, recursive: recursive)
                    continue
                }
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

    /// An entry of `dir` whose name is not UTF-8: an error when it is a `.entl` file or a
    /// directory searched for them (neither can be named, nor left out unsaid); nothing otherwise.
    private static func refuseUnreadableName(_ name: [UInt8], in dir: String, recursive: Bool) throws(CLIError) {
        var info = stat()
        let path = Array(dir.utf8) + [UInt8(ascii: "/")] + name + [0]
        let isDirectory = path.withUnsafeBufferPointer { p in
            p.withMemoryRebound(to: CChar.self) { lstat($0.baseAddress!, &info) == 0 }
        } && info.st_mode & S_IFMT == S_IFDIR
        guard name.count >= 5 && name.suffix(5).elementsEqual(".entl".utf8) || recursive && isDirectory else { return }
        let shown = String(decoding: name, as: UTF8.self)
        throw CLIError("`\(dir)` holds \(isDirectory ? "a directory" : "a rule file") whose name is not UTF-8 "
                       + "(`\(shown)`): rename it (entlc reads every `.entl` file below a directory, and names it)")
    }
}
