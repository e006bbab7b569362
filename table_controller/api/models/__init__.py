"""What the API takes in (Create models) and gives out (Public models); table models never leave storage."""
