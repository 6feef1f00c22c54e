from vaultkit.commands.cli import main

raise SystemExit(main())
