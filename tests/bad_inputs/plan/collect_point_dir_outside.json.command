sweep collect {dir:plan.json}
