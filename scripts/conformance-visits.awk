# The calls a callgrind profile records to the Swift runtime's per-record conformance visitor
# (swift_conformsToProtocolMaybeInstantiateSuperclasses's lambda over one
# TargetProtocolConformanceDescriptor of a ConformanceSection): every uncached lookup calls it
# once for each record of the binary. Prints the sum (0 when the visitor is not in the profile).
/^c?fn=\([0-9]+\) / {
  match($0, /\([0-9]+\)/); id = substr($0, RSTART, RLENGTH)
  if ($0 ~ /swift_conformsToProtocolMaybeInstantiateSuperclasses/ && $0 ~ /ConformanceSection/ && $0 ~ /TargetProtocolConformanceDescriptor/) visitor[id] = 1
}
/^cfn=/ { match($0, /\([0-9]+\)/); callee = substr($0, RSTART, RLENGTH); next }
/^calls=/ { if (callee in visitor) { split($0, field, /[= ]/); total += field[2] } callee = ""; next }
END { print total + 0 }
