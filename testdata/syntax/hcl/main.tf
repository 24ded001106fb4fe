variable "region" {
  default = "us-east-1"
}

resource "aws_instance" "web" {
  ami = "abc"
  tags {
    Name = "web"
  }
}
