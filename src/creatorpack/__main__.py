from creatorpack.cli import main

main()
