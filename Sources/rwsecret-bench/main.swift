print("rwsecret-bench: not yet")
