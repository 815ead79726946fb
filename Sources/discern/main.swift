print("discern")
