#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// The arguments' bytes, not `CommandLine.arguments` (which repairs bytes that are not UTF-8).
let arguments = (0..<Int(CommandLine.argc)).dropFirst().map { i in
    CommandLine.unsafeArgv[i].map { Array(UnsafeRawBufferPointer(start: $0, count: strlen($0))) } ?? []
}
exit(EntlCLI.main(rawArguments: arguments).rawValue)
