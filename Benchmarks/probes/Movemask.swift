import Swift

/// A real movemask for stage1.swift's BUILTIN_MOVEMASK variant. `Builtin` is reachable only with
/// -parse-stdlib, which also slows ordinary SIMD code in the same module to a crawl, so this lives
/// in a module of its own and is inlined across modules (@inlinable).
/// Build: swiftc -O -wmo -parse-stdlib -parse-as-library -emit-module -emit-library -static
///          -module-name Movemask Movemask.swift -o /tmp/libMovemask.a -emit-module-path /tmp/Movemask.swiftmodule

/// Bit i = sign bit of lane i: `<16 x i1>` bitcast to i16, one pmovmskb.
@inlinable @inline(__always)
public func movemask(_ lanes: SIMD16<Int8>) -> UInt16 {
    let v = unsafeBitCast(lanes, to: Builtin.Vec16xInt8.self)
    let zero = unsafeBitCast(SIMD16<Int8>(), to: Builtin.Vec16xInt8.self)
    return UInt16(Builtin.bitcast_Vec16xInt1_Int16(Builtin.cmp_slt_Vec16xInt8(v, zero)))
}
