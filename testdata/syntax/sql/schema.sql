CREATE TABLE users (
  id INT PRIMARY KEY,
  name TEXT
);

CREATE VIEW active AS SELECT * FROM users;

SELECT id FROM users WHERE id = 1;
