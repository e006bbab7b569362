"""The casino's editable configuration, shipped in the wheel as ``table_controller.config``
(pyproject.toml maps this folder there): table settings, house ways, pay tables (shipped.py)."""
